# Bad command lines exit 64 with a message; --help and --version exit 0.
source "$(dirname "$0")/common.sh"

check_usage() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>&1
  RC=$?
  set -e
  expect_rc 64
}
check_usage --timeout banana
expect_out_contains "invalid duration 'banana'"
check_usage --sample 5s --timeout 2s
expect_out_contains "must be shorter than --timeout"
check_usage --no-such-flag
check_usage --timeout 0

"$TOOL" --version | grep -q "^gpu-triage [0-9]" || fail "--version"
"$TOOL" --help | grep -q -- "--sample" || fail "--help"
