# A GPU that never answers: the run ends within --timeout + 1 s, names the
# call it is stuck in, and reports the other GPUs in full.
source "$(dirname "$0")/common.sh"

run one-gpu-hung --timeout 2s --json
expect_rc 2
# with-mock itself takes a moment; the tool's own bound is timeout + 1 s.
(( WALL_MS < 3500 )) || fail "took ${WALL_MS} ms with --timeout 2s"
json_check 'd["gpus"][5]["status"] == "unresponsive"'
json_check 'd["gpus"][5]["stuck_in_call"] == "nvmlDeviceGetPowerUsage"'
json_check 'all(g["status"] == "ok" and g["memory"]["total_bytes"] and g["power"]["draw_w"] is not None and g["processes"] is not None for g in d["gpus"] if g["index"] != 5)' "others in full"

t0=$(date +%s%N)
set +e
MOCK_NVML_SCENARIO=x "$WITH_MOCK" one-gpu-hung "$TOOL" --timeout 1s --sample 0 >"$TMP/out" 2>&1
RC=$?
set -e
ms=$((($(date +%s%N) - t0) / 1000000))
expect_rc 2
(( ms < 2500 )) || fail "took ${ms} ms with --timeout 1s"
expect_out_contains "unresponsive"
expect_out_contains "stuck in nvmlDeviceGetPowerUsage"
