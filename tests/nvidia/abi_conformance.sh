#!/usr/bin/env bash
# Our nvml_types.h and every prototype the tool calls, against NVIDIA's
# nvml.h of CUDA 11.8 and 12.4: struct sizes, field offsets, constants and
# prototypes (tests/nvidia/abi_items.def). NVIDIA's side is compiled here
# from the same probe source, in its own translation unit.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$GT_BUILD_DIR/gt_abi_probe" "$GT_BUILD_DIR/mock_nvml/libnvidia-ml.so.1" >"$TMP/ours" ||
  fail "gt_abi_probe failed"
status=0
for r in r535 r550; do
  h="${NV_HEADER[$r]}"
  "${GT_CXX:-c++}" -std=c++20 -O0 -DGT_ABI_HEADER="$h" -I"$NV/$r/include" \
    -I"$GT_SOURCE_DIR/src" -I"$GT_SOURCE_DIR/tests/nvidia" \
    "$GT_SOURCE_DIR/tests/nvidia/abi_probe.cc" -o "$TMP/probe_$r" 2>"$TMP/cc_$r" ||
    fail "abi_probe.cc does not compile against NVIDIA's nvml.h ($r): an item abi_items.def expects there is missing or differs:
$(grep -E 'error' "$TMP/cc_$r" | head -20)"
  "$TMP/probe_$r" >"$TMP/theirs_$r" || fail "the probe built against $r failed"
  "$PYTHON" "$GT_SOURCE_DIR/tests/nvidia/abi_compare.py" "$TMP/ours" "$TMP/theirs_$r" "$h" || status=1
done

# The comparison itself must catch a difference: one field offset and one
# prototype changed on our side are named.
sed 's/^\(field nvmlPciInfo_t.domain\toffset=\)16/\120/; s/^\(wanted nvmlDeviceGetTemperature\t[^(]*(p(opaque),\)s4,/\1u8,/' \
  "$TMP/ours" >"$TMP/ours_changed"
if "$PYTHON" "$GT_SOURCE_DIR/tests/nvidia/abi_compare.py" "$TMP/ours_changed" "$TMP/theirs_r550" 1204 \
  >"$TMP/changed"; then
  fail "a changed offset and prototype passed: $(cat "$TMP/changed")"
fi
grep -q "MISMATCH field nvmlPciInfo_t.domain: ours offset=20" "$TMP/changed" || fail "offset not named: $(cat "$TMP/changed")"
grep -q "MISMATCH fn nvmlDeviceGetTemperature:" "$TMP/changed" || fail "prototype not named: $(cat "$TMP/changed")"
exit $status
