#!/usr/bin/env bash
# The mock's variants export, of the symbols the tool looks up, what the
# driver release each stands for exports:
#   current  R570+: NVIDIA's 550.163.01 plus what symbol_versions.txt dates
#            between 550 and 570 (TemperatureV, MarginTemperature);
#   r535     535.54.03 (early R535, CUDA 12.2 GA): NVIDIA's 535.261.03 less
#            nvmlDeviceGetRunningProcessDetailList (a later R535 addition);
#   r470     R470: no symbol the table dates after 470.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

M="$GT_BUILD_DIR/mock_nvml"
"$GT_BUILD_DIR/gt_abi_probe" "$M/libnvidia-ml.so.1" >"$TMP/probe" || fail "gt_abi_probe failed"
exports() { nm -D --defined-only "$1" | awk '{print $3}' >"$2"; }
exports "$M/libnvidia-ml.so.1" "$TMP/mock_current"
exports "$M/r535/libnvidia-ml.so.1" "$TMP/mock_r535"
exports "$M/r470/libnvidia-ml.so.1" "$TMP/mock_r470"
exports "$NV/r535/lib/libnvidia-ml.so.1" "$TMP/real_535"
exports "$NV/r550/lib/libnvidia-ml.so.1" "$TMP/real_550"
S="$GT_SOURCE_DIR/tests/nvidia/symbols.py"
status=0
"$PYTHON" "$S" mock 570.0 "$TMP/probe" "$TMP/mock_current" "$TMP/real_550" \
  nvmlDeviceGetTemperatureV nvmlDeviceGetMarginTemperature || status=1
"$PYTHON" "$S" mock 535.54.03 "$TMP/probe" "$TMP/mock_r535" "$TMP/real_535" \
  nvmlDeviceGetRunningProcessDetailList || status=1
"$PYTHON" "$S" mock 470.0 "$TMP/probe" "$TMP/mock_r470" || status=1
exit $status
