# JSON asked, JSON given: a command run with --json that fails before it has
# its answer still prints one JSON object on stdout, {"error", "exit_code"}
# with exit_code the process's status (docs/json.md); the words go to stderr.
source "$(dirname "$0")/common.sh"

expect_error_object() {  # expect_error_object RC TEXT-IN-ERROR
  expect_rc "$1"
  json_check "isinstance(d, dict) and d['exit_code'] == $1 and '$2' in d['error']" \
    "error object with exit_code $1 naming '$2'"
  [[ -s "$TMP/err" ]] || fail "nothing on stderr"
}

# free: NVML that cannot be initialised (the driver is not loaded), and a
# library that is not there.
run driver-not-loaded free --json --sample 0
expect_error_object 2 "driver"
GPU_TRIAGE_NVML_LIB="$TMP/none/libnvidia-ml.so.1" run healthy-h100x8 free --json \
  --nvml-lib "$TMP/none/libnvidia-ml.so.1"
expect_error_object 2 "libnvidia-ml"
run healthy-h100x8 free --json --grace forever
expect_error_object 64 "--grace"
run healthy-h100x8 free --json --no-such-option
expect_error_object 64 "--no-such-option"

# history: a record that is not a regular file; an empty --gpu.
mkdir -p "$TMP/state/history.json"
run healthy-h100x8 history --state-dir "$TMP/state" --json
expect_error_object 1 "not a regular file"
run healthy-h100x8 history --state-dir "$TMP/state" --json --gpu ''
expect_error_object 64 "--gpu"

# data: a folder that cannot be scanned, and bad usage.
run healthy-h100x8 data --json "$TMP/no-such-dir"
expect_error_object 2 "no-such-dir"
run healthy-h100x8 data --json --range 5:1 "$TMP"
expect_error_object 64 "--range"

# triage and fleet: usage errors after parsing.
run healthy-h100x8 --json --timeout 0s
expect_error_object 64 "--timeout"
run healthy-h100x8 --json --hosts-file "$TMP/no-hosts"
expect_error_object 64 "hosts file"
