# The man page documents every option each command's --help prints, and the
# page `make deb` packs (build/gpu-triage.1.gz) is that page, with the data
# command in it.
source "$(dirname "$0")/common.sh"
MAN="$GT_SOURCE_DIR/docs/gpu-triage.1"
[[ -r "$MAN" ]] || fail "no $MAN"
# The page as text: groff's \- is a plain dash.
sed 's/\\-/-/g' "$MAN" >"$TMP/man.txt"

for cmd in "" free serve data history watch fleet bundle topo; do
  # shellcheck disable=SC2086
  "$TOOL" $cmd --help >"$TMP/help" || fail "$cmd --help"
  # Long options anywhere in the help, short ones that start an option line.
  { grep -o -- '--[a-z0-9][a-z0-9-]*' "$TMP/help" || true; } >"$TMP/names"
  { grep -oE '^  -[A-Za-z0-9]([ ,]|$)' "$TMP/help" | cut -c3-4 || true; } >>"$TMP/names"
  n=$(sort -u "$TMP/names" | wc -l)
  ((n >= 3)) || fail "gpu-triage $cmd --help: only $n options found"
  while read -r opt; do
    # Whole option names: --host must not pass for --host-timeout.
    grep -qE -- "(^|[^A-Za-z0-9-])${opt}([^A-Za-z0-9-]|\$)" "$TMP/man.txt" ||
      fail "gpu-triage $cmd --help prints $opt, which docs/gpu-triage.1 does not document"
  done < <(sort -u "$TMP/names")
done

# Each command has its section, with examples and exit status.
for section in FREE DATA SERVE WATCH FLEET HISTORY; do
  grep -q "^\.SH $section\$" "$MAN" || fail "no $section section"
done
for sub in "Examples of free" "Exit status of free" "Options of data" "Examples of data" \
  "Exit status of data" "Examples of serve" "Exit status of serve" "Options of watch" \
  "Examples of watch" "Exit status of watch" "Options of fleet" "Examples of fleet" \
  "Exit status of fleet"; do
  grep -q "^\.SS $sub\$" "$MAN" || fail "no '$sub' subsection"
done

# What the package ships: build/gpu-triage.1.gz is this page, and man shows data.
GZ="$GT_BUILD_DIR/gpu-triage.1.gz"
[[ -r "$GZ" ]] || fail "no $GZ (built with the default target)"
gzip -dc "$GZ" | cmp -s - "$MAN" || fail "$GZ is not docs/gpu-triage.1 (rebuild)"
command -v man >/dev/null || fail "man missing"
MANWIDTH=100 man -l "$GZ" 2>"$TMP/man.err" >"$TMP/out" || fail "man -l: $(cat "$TMP/man.err")"
expect_out_contains "gpu-triage data DIR..."
expect_out_contains "--move-bad-to DEST"
expect_out_contains "--write-manifest FILE"
expect_out_contains "Exit status of data"
expect_out_contains "gpu-triage help [COMMAND]"
