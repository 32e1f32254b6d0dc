#!/usr/bin/env bash
# What the probe finds on the story's node with a healthy libcuda and one
# fault per GPU (issue 35): memory that reads back wrong is critical; a
# x16 link copying at x4 rates is a warning; a TP=8 group with a pair
# without peer access is a warning naming the pair; an error at a chosen
# step is named with its CUDA error; a child killed by a signal is said so
# and the others are still reported.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

mkdir -p "$TMP/tp8"
ln -s "$GT_SOURCE_DIR/tests/scenarios/story/root" "$TMP/tp8/root"
"$PYTHON" - "$GT_SOURCE_DIR/tests/scenarios/story/scenario.json" "$TMP/tp8/scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
# A PCIe Gen1 host: rates the mock's memcpy reaches on a loaded machine (the
# mock paces a healthy link at 80% of its rate; 50% is the threshold).
for d in s["devices"]:
    d["pcie"].update(current_gen=1, max_gen=1, gpu_max_gen=1)
s["cuda"] = {"peer_denied": [[2, 5]], "devices": {
    "1": {"corrupt_readback": True},
    "2": {"h2d_gb_per_s": 0.8, "d2h_gb_per_s": 0.8},  # 80% of Gen1 x4
    "4": {"error": {"step": "cuCtxCreate", "code": 999}},
    "5": {"error": {"step": "cuMemAlloc", "code": 2}},
    "6": {"error": {"step": "cuCtxSynchronize", "code": 719}},
    "7": {"crash_at": "cuLaunchKernel"}}}
json.dump(s, open(sys.argv[2], "w"))
PY

run "$TMP/tp8" cuda --include-busy --memory 8MiB --timeout 5s
expect_rc 2
expect_out_contains "GPU 0  0000:18:00.0 ok ctx"
expect_out_contains "critical: Memory on GPU 1 (00000000:2A:00.0) reads back wrong [cuda.readback_mismatch]"
expect_out_contains "the first at byte 0x1000: wrote"
expect_out_contains "warning: Copies to and from GPU 2 (00000000:3A:00.0) run far below its PCIe link's rate [cuda.copy_slow]"
expect_out_contains "its x16 Gen1 link carries 4.0 GB/s (below 50% of it; about what x4 carries)"
expect_out_contains "GPU 4  0000:9a:00.0 FAILED at cuCtxCreate: 999 CUDA_ERROR_UNKNOWN"
expect_out_contains "GPU 5  0000:ab:00.0 FAILED at cuMemAlloc: 2 CUDA_ERROR_OUT_OF_MEMORY"
expect_out_contains "GPU 6  0000:ba:00.0 FAILED at cuCtxSynchronize: 719 CUDA_ERROR_LAUNCH_FAILED"
# Under AddressSanitizer (make check-asan) its SEGV handler turns the
# child's crash into an abort (abort_on_error=1): signal 6, not 11.
crash_signal=11
[[ -n "${GT_SANITIZED:-}" ]] && crash_signal=6
expect_out_contains "the probe's child was killed by signal $crash_signal"
expect_out_contains "in cuLaunchKernel"
expect_out_contains "warning: GPUs of SGLang (pid 3141, TP=8) cannot reach each other (peer access): 2-5 [cuda.peer_unreachable]"
expect_out_contains "NCCL will fall back to copies through host memory"

run "$TMP/tp8" cuda --include-busy --memory 8MiB --timeout 5s --json
expect_rc 2
# (A healthy GPU's copies can lose the CPU on a loaded machine: copy_slow is
# checked for GPU 2 only.)
json_check 'sorted(f["id"] for f in d["findings"] if f["id"] != "cuda.copy_slow") == sorted(["cuda.readback_mismatch", "cuda.probe_failed", "cuda.probe_failed", "cuda.probe_failed", "cuda.probe_crashed", "cuda.peer_unreachable"])'
json_check '2 in [f["gpu"] for f in d["findings"] if f["id"] == "cuda.copy_slow"]'
json_check "[g['signal'] for g in d['gpus'] if g['outcome'] == 'crashed'] == [$crash_signal]"
json_check '[p["can_access"] for p in d["peer_groups"][0]["pairs"] if {p["from"], p["to"]} == {2, 5}] == [False, False]'
json_check 'sum(p["can_access"] is True for p in d["peer_groups"][0]["pairs"]) == 54'

# Warnings only: GPUs 2 and 3 (their peer group is the pair 2-3).
run "$TMP/tp8" cuda --include-busy --memory 8MiB --gpus 2,3
expect_rc 1
expect_out_contains "[cuda.copy_slow]"
expect_out_lacks "critical:"
expect_out_lacks "GPU 0 "
