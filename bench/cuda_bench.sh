#!/usr/bin/env bash
# make bench, gpu-triage cuda (issue 35): on 8 mock GPUs the whole probe
# against one GPU's (target: within 1.25x), and with one GPU hung in
# cuCtxCreate the deadline's cost (target: --timeout plus at most 1 s), in
# one run. The mock gives each GPU a driver's latencies (cuInit 150 ms,
# cuCtxCreate 300 ms) so the probe waits as on hardware instead of
# measuring this machine's memcpy (1 MiB per GPU: the mock copies on the
# CPU what a GPU copies by DMA); each figure is the median of 3 runs.
# Usage: bench/cuda_bench.sh [BUILD_DIR]
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$SRC/build}"
TOOL="$BUILD/gpu-triage"
WORK="$(mktemp -d /tmp/gt-cuda-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export GT_BUILD_DIR="$BUILD"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3

"$PY" - "$SRC/tests/scenarios/healthy-h100x8/scenario.json" "$WORK" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lat = {"latency_ms": {"cuInit": 150, "cuCtxCreate": 300}}
s["cuda"] = {"devices": {str(i): dict(lat) for i in range(8)}}
json.dump(s, open(sys.argv[2] + "/ok.json", "w"))
s["cuda"]["devices"]["3"]["hang_at"] = "cuCtxCreate"
json.dump(s, open(sys.argv[2] + "/hung.json", "w"))
PY

# median_ms SCENARIO ARGS...: the median wall time of 3 runs of the tool.
median_ms() {
  local json="$1"
  shift
  "$SRC/scripts/with-mock" "$json" bash -c '
    for i in 1 2 3; do
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      echo $(((t1 - t0) / 1000000))
    done' _ "$TOOL" cuda --memory 1MiB "$@" | sort -n | sed -n 2p
}

echo "== gpu-triage cuda bench ($(nproc) cores, $(date -u +%F)) =="
one=$(median_ms "$WORK/ok.json" --gpus 0)
eight=$(median_ms "$WORK/ok.json")
hung=$(median_ms "$WORK/hung.json" --timeout 2s)
awk -v a="$one" -v b="$eight" -v h="$hung" 'BEGIN {
  printf "one GPU            %6d ms\n", a
  printf "8 GPUs             %6d ms   ratio %.2fx (target <= 1.25x)\n", b, b / a
  printf "8 GPUs, one hung   %6d ms   deadline 2000 ms + %d ms (target <= 1000 ms)\n", h, h - 2000
}'
