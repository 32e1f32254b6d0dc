# `gpu-triage help [COMMAND]` prints what --help and COMMAND --help print;
# every help names the program and the command in its usage line and ends
# with the command's exit codes.
source "$(dirname "$0")/common.sh"

# help_of NAME ARGS...: the tool's stdout for ARGS in $TMP/NAME; exit 0, no stderr.
help_of() {
  local name="$1"
  shift
  "$TOOL" "$@" >"$TMP/$name" 2>"$TMP/$name.err" || fail "$*: exit $?"
  [[ ! -s "$TMP/$name.err" ]] || fail "$*: stderr: $(cat "$TMP/$name.err")"
}

help_of main --help
help_of help help
cmp -s "$TMP/main" "$TMP/help" || fail "help differs from --help: $(diff "$TMP/main" "$TMP/help")"
help_of help-help help help
cmp -s "$TMP/main" "$TMP/help-help" || fail "help help differs from --help"
grep -qx "Usage: gpu-triage \[OPTIONS\]" "$TMP/main" || fail "usage line: $(grep Usage "$TMP/main")"
for cmd in free serve data history watch fleet cuda topo bundle; do
  help_of "$cmd" "$cmd" --help
  help_of "help-$cmd" help "$cmd"
  cmp -s "$TMP/$cmd" "$TMP/help-$cmd" || fail "help $cmd differs from $cmd --help"
  grep -q "^Usage: gpu-triage $cmd \[OPTIONS\]" "$TMP/$cmd" ||
    fail "$cmd usage line: $(grep Usage "$TMP/$cmd")"
done

# The subcommands are listed (help included), and bash completion still
# finds exactly them.
sed -n '/^Subcommands:/,/^$/ s/^  \([a-z][a-z-]*\) .*/\1/p' "$TMP/main" >"$TMP/subs"
[[ "$(tr '\n' ' ' <"$TMP/subs")" == "free serve data watch fleet history cuda topo bundle help " ]] || fail "subcommands: $(cat "$TMP/subs")"

# ends_with_exit_codes FILE CODE...: the last paragraph starts "Exit codes"
# and names each code.
ends_with_exit_codes() {
  local file="$1"
  shift
  awk 'BEGIN{RS=""} {p=$0} END{print p}' "$TMP/$file" >"$TMP/last"
  grep -q "^Exit codes" "$TMP/last" || fail "$file --help does not end with its exit codes: $(cat "$TMP/last")"
  tr '\n' ' ' <"$TMP/last" | tr -s ' ' >"$TMP/last1"
  for code in "$@"; do
    grep -qF -- "$code" "$TMP/last1" || fail "$file --help exit codes lack '$code': $(cat "$TMP/last1")"
  done
}
ends_with_exit_codes main "0 OK" "1 WARNING" "2 CRITICAL" "3 UNKNOWN" "--exit-codes npd" \
  "0 ok, 1 problem, 2 unknown" "64 bad usage" "74 the --textfile could not be written"
ends_with_exit_codes free "0 the selected GPUs are free" "1 memory remains" \
  "2 a refusal or a failure" "64 bad usage"
ends_with_exit_codes data "0 every file intact" "1 resumable problems" "2 a DIR" \
  "3 nothing to check" "64 bad usage"
ends_with_exit_codes serve "0 stopped by SIGINT or SIGTERM" "3 cannot listen" "64 bad usage"
ends_with_exit_codes watch "0 stopped by q, SIGINT or SIGTERM, or stdout closed" "64 bad usage"
ends_with_exit_codes fleet "the worst host's" "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN" \
  "at least 1 when the fleet has a finding" "64 bad usage"
ends_with_exit_codes cuda "0 every probed GPU passed" "1 a warning" "2 a GPU failed" \
  "3 nothing could be proved" "64 bad usage"
ends_with_exit_codes bundle "0 the bundle was written" "64 bad usage" "74 it could not be written"
ends_with_exit_codes history "0 done" "1 the record cannot be read" "64 bad usage" \
  "74 it cannot be written"
