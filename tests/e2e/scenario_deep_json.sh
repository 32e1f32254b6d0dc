# A scenario file nested 100,000 levels deep (tests/fuzz/regressions/
# scenario_json/): scripts/with-mock gives no Python traceback and the mock
# NVML library no stack overflow; the mock says why in one line and the tool
# reports NVML as unusable (exit 2).
source "$(dirname "$0")/common.sh"

for f in deep-nesting.json deep-unclosed.json; do
  run "$GT_SOURCE_DIR/tests/fuzz/regressions/scenario_json/$f" --json --no-kernel-log
  expect_rc 2
  if grep -q "Traceback" "$TMP/err"; then fail "$f: with-mock printed a Python traceback"; fi
  grep -q "mock-nvml: .*JSON nested deeper than 64 levels" "$TMP/err" ||
    fail "$f: the mock's reason is not on stderr: $(head -c 500 "$TMP/err")"
  json_check 'd["nvml"]["init_error"] == "NVML_ERROR_UNKNOWN"'
done
