# NVML init failures each get a clear line and exit code 2.
source "$(dirname "$0")/common.sh"

run version-mismatch
expect_rc 2
expect_out_contains "driver/library version mismatch: kernel module 570.133.20, NVML library 570.124.06"
expect_out_contains "Reboot"

run driver-not-loaded
expect_rc 2
expect_out_contains "the NVIDIA kernel driver is not loaded"
expect_out_contains "modprobe nvidia"

run malformed --json
expect_rc 2
json_check 'd["nvml"]["init_error"] == "NVML_ERROR_UNKNOWN"'
grep -q "mock-nvml: " "$TMP/err" || fail "the mock's own reason is not on stderr"
