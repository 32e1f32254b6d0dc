#!/usr/bin/env bash
# gpu-triage against NVIDIA's own libnvidia-ml.so.1 (535.261.03, 550.163.01)
# on this machine, which has no NVIDIA GPU and no nvidia module: the
# library loads and answers nvmlInit_v2 with DRIVER_NOT_LOADED. With fixture
# roots for the host view: no NVIDIA device on the PCI bus is "no NVIDIA GPU
# on this machine" (one line, exit 3, naming the library); --expect-gpus 8
# is gpu.count_mismatch with advice for the machine and no modprobe; a GPU
# on the bus stays nvml.driver_not_loaded with modprobe. Each run finishes
# well within its --timeout and never crashes.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S="$GT_SOURCE_DIR/tests/scenarios"
# real ROOT LIB ARGS...: the tool with NVIDIA's library; stdout in $TMP/out.
real() {
  local root="$1" lib="$2"
  shift 2
  local t0 t1
  t0=$(date +%s%N)
  set +e
  GPU_TRIAGE_ROOT="$root" timeout -k 2 30 "$TOOL" --nvml-lib "$lib" --timeout 5s --sample 0 \
    --no-state "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  t1=$(date +%s%N)
  WALL_MS=$(((t1 - t0) / 1000000))
  [[ $RC -lt 124 ]] || fail "exit $RC (timeout or signal): $(cat "$TMP/err")"
  ((WALL_MS < 10000)) || fail "took ${WALL_MS} ms with --timeout 5s"
}

for r in r535 r550; do
  lib="$NV/$r/lib/libnvidia-ml.so.1"
  v="${NV_VERSION[$r]}"

  real "$S/driverless-vm/root" "$lib" --no-color
  expect_rc 3
  [[ $(wc -l <"$TMP/out") == 1 ]] || fail "$r: one line, got: $(cat "$TMP/out")"
  expect_out_contains "UNKNOWN  no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, NVML library $v installed ($lib)"
  expect_out_lacks "modprobe"

  real "$S/driverless-vm/root" "$lib" --json
  expect_rc 3
  json_check 'd["nvml"]["init_error"] == "NVML_ERROR_DRIVER_NOT_LOADED"'
  json_check '[(f["id"], f["severity"]) for f in d["findings"]] == [("clock.unsynchronised", "info")]'

  real "$S/driverless-vm/root" "$lib" --expect-gpus 8 --json
  expect_rc 2
  json_check '[f["id"] for f in d["findings"] if f["severity"] != "info"] == ["gpu.count_mismatch"]'
  json_check 'd["findings"][0]["severity"] == "critical" and "expected 8" in d["findings"][0]["title"]'
  json_check '"not pass the GPUs through" in d["findings"][0]["action"]'
  json_check '"NVML library '"$v"' installed" in d["findings"][0]["evidence"] and "hypervisor flag" in d["findings"][0]["evidence"]'
  json_check 'not any("modprobe" in c for f in d["findings"] for c in f["commands"])'
  json_check 'not any("modprobe" in c for s in d["plan"] for c in s["commands"])'

  real "$S/driverless-metal/root" "$lib" --expect-gpus 8 --json
  expect_rc 2
  json_check '"BIOS" in d["findings"][0]["action"] and "passed through" not in d["findings"][0]["action"]'
  json_check 'not any("modprobe" in c for f in d["findings"] for c in f["commands"])'

  # A GPU on the bus (unbound), no module: the driver is not loaded.
  real "$S/driver-not-loaded/root" "$lib" --json
  expect_rc 2
  json_check '[f["id"] for f in d["findings"]][:1] == ["nvml.driver_not_loaded"]'
  json_check 'any("modprobe nvidia" in c for c in d["findings"][0]["commands"])'
  json_check '"NVML library '"$v"' installed; 8 NVIDIA GPUs on the PCI bus" == d["findings"][0]["evidence"]'
done
