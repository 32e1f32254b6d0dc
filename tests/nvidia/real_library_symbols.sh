#!/usr/bin/env bash
# Every symbol the tool looks up (NvmlLibrary::open, src/sources/nvml/
# nvml_api.cc) is exported by NVIDIA's libnvidia-ml.so.1 535.261.03 and
# 550.163.01, or is marked optional with the first release that has it
# (tests/nvidia/symbol_versions.txt). The library loads on this GPU-less
# machine: open() resolves symbols without calling into the driver.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

status=0
for r in r535 r550; do
  lib="$NV/$r/lib/libnvidia-ml.so.1"
  "$GT_BUILD_DIR/gt_abi_probe" "$lib" >"$TMP/probe_$r" || fail "gt_abi_probe could not open $lib"
  nm -D --defined-only "$lib" | awk '{print $3}' >"$TMP/exports_$r"
  "$PYTHON" "$GT_SOURCE_DIR/tests/nvidia/symbols.py" real "${NV_VERSION[$r]}" "$TMP/probe_$r" \
    "$TMP/exports_$r" || status=1
done
exit $status
