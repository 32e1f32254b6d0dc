#!/usr/bin/env bash
# The story (issue 35): the container's libcuda 565.57.01 under the 590.48.01
# module; the mock libcuda answers cuInit with 803 on every GPU. `gpu-triage
# cuda` says CUDA cannot start on any GPU, names the library and the fix,
# exits 2, in under 2 s; the JSON says the same with the error's name.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run story cuda
expect_rc 2
[[ "$WALL_MS" -lt 2000 ]] || fail "took ${WALL_MS} ms (want < 2000)"
expect_out_contains "CUDA cannot start on any GPU: cuInit returns CUDA_ERROR_SYSTEM_DRIVER_MISMATCH [cuda.init_failed]"
expect_out_contains "libcuda.so.565.57.01 (565.57.01): cuInit returned 803"
expect_out_contains "kernel module 590.48.01"
expect_out_contains "fix: make the libcuda a job loads the kernel module's release (590.48.01)"
# The GPUs SGLang holds are never allocated on without --include-busy.
expect_out_contains "GPU 0  0000:18:00.0 skipped: held by pid 3187 (--include-busy)"
[[ "$(grep -c '^critical:' "$TMP/out")" == 1 ]] || fail "want one critical finding: $(cat "$TMP/out")"

run story cuda --json
expect_rc 2
json_check 'd["init_error"] == 803 and d["init_error_name"] == "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"'
json_check 'd["library_version"] == "565.57.01" and d["module_version"] == "590.48.01"'
json_check '[f["id"] for f in d["findings"]] == ["cuda.init_failed"]'
json_check 'all(g["outcome"] == "skipped" for g in d["gpus"])'

# --include-busy: each GPU's own cuInit fails the same way; still one finding.
run story cuda --include-busy
expect_rc 2
expect_out_contains "FAILED at cuInit: 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
[[ "$(grep -c '^critical:' "$TMP/out")" == 1 ]] || fail "want one critical finding: $(cat "$TMP/out")"
