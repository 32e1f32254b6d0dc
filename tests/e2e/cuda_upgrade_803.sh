#!/usr/bin/env bash
# `gpu-triage cuda` concludes only from what it probed (issue 46 item 5).
# upgrade-under-server: the user space on disk is 595.45.04 under the
# 590.48.01 module, so NVML is refused and the mock libcuda (595) fails
# cuInit with 803 by NVIDIA's rule R2 (docs/physics.md), whatever the
# scenario asks: CUDA cannot start in a new process with that libcuda. The
# story: every GPU is held by an SGLang scheduler, so none is probed, and
# the report says so (those processes are the proof CUDA runs there), never
# that CUDA cannot start.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run upgrade-under-server cuda
expect_rc 2
[[ "$WALL_MS" -lt 2000 ]] || fail "took ${WALL_MS} ms (want < 2000)"
expect_out_contains "CUDA cannot start in a new process with this libcuda: cuInit returns CUDA_ERROR_SYSTEM_DRIVER_MISMATCH [cuda.init_failed]"
expect_out_contains "libcuda.so.595.45.04 (595.45.04): cuInit returned 803"
expect_out_contains "kernel module 590.48.01"
expect_out_contains "fix: make the libcuda a job loads the kernel module's release (590.48.01)"
expect_out_lacks "on any GPU"
[[ "$(grep -c '^critical:' "$TMP/out")" == 1 ]] || fail "want one critical finding: $(cat "$TMP/out")"

run upgrade-under-server cuda --json
expect_rc 2
json_check 'd["init_error"] == 803 and d["init_error_name"] == "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"'
json_check 'd["library_version"] == "595.45.04" and d["module_version"] == "590.48.01"'
json_check '[f["id"] for f in d["findings"]] == ["cuda.init_failed"]'

# The story: libcuda and module are both 590.48.01 (R2 holds): cuInit works;
# every GPU is held, so nothing is probed and nothing is concluded.
run story cuda
expect_out_contains "tested: 0 of 8 probed, 0 passed; 8 held by running processes, not probed"
expect_out_contains "GPU 0  0000:18:00.0 skipped: held by pid 3187 (--include-busy)"
expect_out_lacks "cannot start"
expect_out_lacks "cuInit 803"
if grep -q '^critical:' "$TMP/out"; then fail "a critical finding from GPUs it did not probe: $(cat "$TMP/out")"; fi
run story cuda --json
json_check 'd["init_error"] is None and all(g["outcome"] == "skipped" for g in d["gpus"])'
json_check 'not any(f["severity"] == "critical" for f in d["findings"])'
