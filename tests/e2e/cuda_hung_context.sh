#!/usr/bin/env bash
# One of 8 mock GPUs hangs in cuCtxCreate (issue 35): with --timeout 2s the
# whole command exits within 3 s, that GPU "stuck in cuCtxCreate" (killed),
# the 7 others passed with their figures; exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$PYTHON" - "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8/scenario.json" "$TMP/hung.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["cuda"] = {"devices": {"3": {"hang_at": "cuCtxCreate"}}}
for d in s["devices"]:  # a PCIe Gen3 host: rates the mock's memcpy reaches
    d["pcie"].update(current_gen=3, max_gen=3)
json.dump(s, open(sys.argv[2], "w"))
PY
run "$TMP/hung.json" cuda --timeout 2s --memory 8MiB
expect_rc 2
[[ "$WALL_MS" -lt 3000 ]] || fail "took ${WALL_MS} ms (want < 3000)"
expect_out_contains "GPU 3  0000:5d:00.0 STUCK in cuCtxCreate"
expect_out_contains "CUDA stuck in cuCtxCreate on GPU 3 (00000000:5D:00.0) [cuda.probe_stuck]"
[[ "$(grep -cE '^GPU [0-9] .* ok ctx .*8 MiB read back, kernel ok, [0-9.]+/[0-9.]+ GB/s' "$TMP/out")" == 7 ]] ||
  fail "want 7 GPUs ok with figures: $(cat "$TMP/out")"

run "$TMP/hung.json" cuda --timeout 2s --memory 8MiB --json
expect_rc 2
json_check 'sum(g["outcome"] == "passed" for g in d["gpus"]) == 7'
json_check '[g["stuck_in"] for g in d["gpus"] if g["outcome"] == "stuck"] == ["cuCtxCreate"]'
json_check 'all(g["tested_bytes"] == 8 << 20 and g["h2d_gb_per_s"] > 0 for g in d["gpus"] if g["outcome"] == "passed")'
# Each child sees its own GPU only (CUDA_VISIBLE_DEVICES by UUID).
json_check 'all(g["cuda_ordinal"] == 0 for g in d["gpus"] if g["outcome"] == "passed")'
