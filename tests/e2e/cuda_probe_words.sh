#!/usr/bin/env bash
# Issue 48 item 13: what `gpu-triage cuda` says must be what it proved.
# 1. A GPU whose copies are slow (400 ms each) is cut off by --timeout while
#    its calls keep returning: LATE, a warning, never "STUCK" nor a reset.
# 2. A node-wide cuInit hang is one finding for the node, with no
#    `nvidia-smi -r` for each GPU.
# 3. Run as root, no step keeps `sudo`.
# 4. Out of memory at cuMemAlloc with the free memory known is not "free
#    the GPU": the allocation fitted.
# 5. --memory 512 (bytes) is one page written and read back, not 0 and a skip.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# scenario FILE CUDA_JSON: two H100s of the healthy node, a Gen3 host.
scenario() {
  "$PYTHON" - "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8/scenario.json" "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["devices"] = s["devices"][:2]
for d in s["devices"]:
    d["pcie"].update(current_gen=3, max_gen=3)
s["cuda"] = json.loads(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
}

# 1. Slow copies: 8 MiB at 0.02 GB/s is 420 ms a copy; 12 copies > 2 s.
scenario "$TMP/slow.json" '{"devices": {"1": {"h2d_gb_per_s": 0.02, "d2h_gb_per_s": 0.02}}}'
run "$TMP/slow.json" cuda --timeout 2s --memory 8MiB
expect_rc 1
expect_out_lacks "STUCK"
expect_out_lacks "nvidia-smi -r"
expect_out_contains "LATE in"
expect_out_contains "[cuda.probe_late]"

# 2. cuInit hangs for every process: one node finding.
scenario "$TMP/hang.json" '{"hang_at": "cuInit"}'
run "$TMP/hang.json" cuda --timeout 1s --memory 8MiB
expect_rc 2
[[ "$(grep -c '\[cuda.probe_stuck\]' "$TMP/out")" == 1 ]] || fail "want one cuda.probe_stuck: $(cat "$TMP/out")"
expect_out_lacks "nvidia-smi -r"
expect_out_contains "GPUs 0-1 were stuck there too"

# 3. One GPU hangs in cuCtxCreate: its reset step, without sudo as root.
scenario "$TMP/ctx.json" '{"devices": {"0": {"hang_at": "cuCtxCreate"}}}'
run "$TMP/ctx.json" cuda --timeout 1s --memory 8MiB
expect_rc 2
expect_out_contains "STUCK in cuCtxCreate"
expect_out_contains "${SUDO}nvidia-smi -r -i"
[[ -n "$SUDO" ]] || expect_out_lacks "sudo "

# 4. Out of memory where cuMemGetInfo said ~80 GiB free.
scenario "$TMP/oom.json" '{"devices": {"0": {"error": {"step": "cuMemAlloc", "code": 2}}}}'
run "$TMP/oom.json" cuda --timeout 5s --memory 8MiB
expect_rc 2
expect_out_contains "not a lack of memory"
expect_out_lacks "gpu-triage free"

# 5. --memory 512: bytes, one 4 KiB page tested, nothing skipped.
scenario "$TMP/ok.json" '{}'
run "$TMP/ok.json" cuda --timeout 5s --memory 512 --json
# (exit 0, or 1 where a 4 KiB copy's rate on a loaded host reads as slow)
[[ "$RC" == 0 || "$RC" == 1 ]] || fail "exit $RC"
json_check 'all(g["outcome"] == "passed" and g["tested_bytes"] == 4096 for g in d["gpus"])' "512 bytes is one page, probed"
