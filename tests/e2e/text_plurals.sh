# Counted nouns and lists read right in every scenario's text report (issue
# 25): no "1 GPUs", "1 filesystems", "1 Xid errors", no "(s)" plurals, no PID
# or GPU listed twice in one command, and at 80 columns no line is longer.
source "$(dirname "$0")/common.sh"
# Singular words that end in s (and units).
ok_words='process|bus|status|class|address|access|ms|ns|us|is|was|has|this|its|series|analysis|gas|plus|less|loss|miss|pass|nvidia-persistenced'
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  name=$(basename "$dir")
  [[ -f "$dir/scenario.json" && "$name" != malformed ]] || continue
  set +e
  COLUMNS=80 "$WITH_MOCK" "$dir" "$TOOL" --sample 0 >"$TMP/$name.txt" 2>&1
  set -e
  bad=$(grep -noE '(^|[^0-9.,:/-])1 [A-Za-z][A-Za-z-]*s\b' "$TMP/$name.txt" |
    grep -vE ":(.*[^0-9.,:/-])?1 ($ok_words)\$" || true)
  [[ -z "$bad" ]] || fail "$name: a plural after 1: $bad"
  if grep -nE '[a-z]\((s|es)\)' "$TMP/$name.txt"; then fail "$name: a '(s)' plural"; fi
  if grep -nE '\b(kill|GPUs?|PIDs?) ([0-9]+ )*([0-9]+) ([0-9]+ )*\3\b' "$TMP/$name.txt"; then
    fail "$name: a number listed twice"
  fi
  # No NVIDIA GPU (no-gpu, driverless-*): nothing to check is one line by
  # design (scripts read it whole).
  [[ "$name" == no-gpu || "$name" == driverless-* ]] && continue
  awk -v n="$name" 'length($0) > 80 { print n ": line " NR " is " length($0) " columns: " $0; bad = 1 }
    END { exit bad }' "$TMP/$name.txt" || fail "$name does not fit 80 columns"
done
