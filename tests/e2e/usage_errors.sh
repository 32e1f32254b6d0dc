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

# Captured first: `cmd | grep -q` can kill cmd with SIGPIPE under pipefail.
"$TOOL" --version >"$TMP/v"
grep -q "^gpu-triage [0-9]" "$TMP/v" || fail "--version"
"$TOOL" --help >"$TMP/h"
grep -q -- "--sample" "$TMP/h" || fail "--help"
