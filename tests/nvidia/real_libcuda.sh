#!/usr/bin/env bash
# NVIDIA's own libcuda1 (535.261.03 bookworm, 550.163.01 trixie; Debian
# non-free, scripts/fetch-nvidia) on this GPU-less machine (issue 35):
#  - it exports every driver API symbol the probe resolves
#    (src/sources/cuda_driver/cuda_types.h), or the test names the missing one;
#  - `gpu-triage cuda` loads it: cuDriverGetVersion 12020 (535), cuInit 100
#    CUDA_ERROR_NO_DEVICE; one line saying there is no GPU for CUDA, exit 3,
#    well within its deadline (no hang).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

declare -A API=([r535]=12020 [r550]=12040)
# The exported names, read from the table the tool resolves them from.
mapfile -t want < <(grep -oE '^ *X\(cu[A-Za-z_0-9]+, "cu[A-Za-z_0-9]+"' \
  "$GT_SOURCE_DIR/src/sources/cuda_driver/cuda_types.h" | sed -E 's/.*"(cu[^"]+)"/\1/')
[[ ${#want[@]} -ge 20 ]] || fail "read only ${#want[@]} symbols from cuda_types.h"
for r in r535 r550; do
  lib="$NV/$r/lib/libcuda.so.1"
  [[ -e "$lib" ]] || fail "$lib is missing: run scripts/fetch-nvidia (it fetches libcuda1)"
  nm -D --defined-only "$lib" | awk '{print $3}' >"$TMP/exports_$r"
  for s in "${want[@]}"; do
    grep -qxF "$s" "$TMP/exports_$r" || fail "NVIDIA's libcuda ${NV_VERSION[$r]} does not export $s"
  done

  t0=$(date +%s%N)
  set +e
  GPU_TRIAGE_NVML_LIB="$TMP/no-such-libnvidia-ml.so.1" \
    GPU_TRIAGE_ROOT="$GT_SOURCE_DIR/tests/scenarios/empty-root" \
    "$TOOL" cuda --cuda-lib "$lib" --timeout 10s >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  ms=$((($(date +%s%N) - t0) / 1000000))
  expect_rc 3
  [[ "$ms" -lt 10000 ]] || fail "$r: took $ms ms"
  [[ "$(wc -l <"$TMP/out")" == 1 ]] || fail "$r: want one line: $(cat "$TMP/out")"
  expect_out_contains "No GPU for CUDA here: cuInit says CUDA_ERROR_NO_DEVICE"
  expect_out_contains "libcuda.so.${NV_VERSION[$r]} (${NV_VERSION[$r]}): cuInit returned 100"
  expect_out_contains "cuDriverGetVersion ${API[$r]}"
done
