# No NVIDIA library at all: one clear line, non-zero exit, and the GPUs on
# the PCI bus are still shown.
source "$(dirname "$0")/common.sh"

run no-driver
expect_rc 2
head -1 "$TMP/out" | grep -q "^CRITICAL" || fail "verdict line: $(head -1 "$TMP/out")"
# The clear statement under the verdict and the first screen (wrapped to the
# terminal: one paragraph), right after the first screen's blank line.
at=$(($(grep -n '^$' "$TMP/out" | head -1 | cut -d: -f1) + 1))
sed -n "$at,/^[^ ]/p" "$TMP/out" | sed '$d' | tr -s ' \n' '  ' >"$TMP/first"
sed -n "${at}p" "$TMP/out" | grep -q "^gpu-triage: no NVIDIA driver: " || fail "the clear line: $(sed -n "${at}p" "$TMP/out")"
grep -q "^gpu-triage: no NVIDIA driver: the NVML library .* cannot be loaded; no nvidia kernel module loaded; 8 NVIDIA GPUs on the PCI bus *$" "$TMP/first" || fail "the clear statement: $(cat "$TMP/first")"
expect_out_contains "8 NVIDIA GPUs on the PCI bus"
expect_out_contains "0000:19:00.0"

run no-driver --json
expect_rc 2
json_check 'd["nvml"]["loaded"] is False and d["nvml"]["init_error"] == "LIBRARY_NOT_FOUND"'
json_check 'd["gpus"] == [] and d["gpu_count"] is None' "unknown count is null, not 0"
json_check 'len(d["pci_devices"]) == 8 and all(p["driver"] is None for p in d["pci_devices"])'
grep -q "no NVIDIA driver" "$TMP/err" || fail "stderr lacks the reason in --json mode"

# An explicit library path that does not exist says which path.
set +e
"$TOOL" --nvml-lib /nonexistent/libnvidia-ml.so.1 --root "$GT_SOURCE_DIR/tests/scenarios/empty-root" >"$TMP/out" 2>&1
RC=$?
set -e
# No GPU on the bus and no driver: nothing to check, UNKNOWN (3), one line
# naming the library path asked for (tests/e2e/no_gpu.sh has the rest).
expect_rc 3
[[ $(wc -l <"$TMP/out") == 1 ]] || fail "one line: $(cat "$TMP/out")"
expect_out_contains "no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, no NVML library (/nonexistent/libnvidia-ml.so.1)"
head -1 "$TMP/out" | grep -q "^UNKNOWN" || fail "verdict: $(head -1 "$TMP/out")"
