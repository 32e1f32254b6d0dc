#!/usr/bin/env bash
# make bench, gpu-triage watch: CPU and memory of the live loop on 8 mock
# GPUs (healthy-h100x8) at the default 2 s interval, log mode, against a
# baseline measured in the same run: one full triage (gpu-triage --json)
# on the same mock, i.e. what `watch -n 2 gpu-triage` would cost per tick.
# Targets: under 2% of one core; resident memory flat between the middle
# and the end of the run (bounded history).
# Usage: bench/watch_bench.sh [BUILD_DIR]   (env: GT_BENCH_WATCH_S, default 60)
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$SRC/build}"
TOOL="$BUILD/gpu-triage"
SECONDS_RUN="${GT_BENCH_WATCH_S:-60}"
WORK="$(mktemp -d /tmp/gt-watch-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export GT_BUILD_DIR="$BUILD"
TICK=$(getconf CLK_TCK)

# cpu_s PID: user+system CPU seconds of a live process.
cpu_s() { awk -v t="$TICK" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }

echo "== gpu-triage watch bench ($(nproc) cores, $(date -u +%F)) =="

# Baseline: one triage, CPU of the whole process (children included).
/usr/bin/time -f "%U %S %M" -o "$WORK/triage.time" \
  "$SRC/scripts/with-mock" healthy-h100x8 "$TOOL" --json --no-state >/dev/null 2>&1 || true
read -r tu ts tmax <"$WORK/triage.time"
triage_cpu=$(awk -v u="$tu" -v s="$ts" 'BEGIN { printf "%.3f", u + s }')

"$SRC/scripts/with-mock" healthy-h100x8 sh -c "echo \$\$ > $WORK/pid; exec $TOOL watch --log --interval 2s" \
  >"$WORK/out" 2>&1 &
runner=$!
for _ in $(seq 100); do [[ -s "$WORK/pid" ]] && break; sleep 0.05; done
pid=$(cat "$WORK/pid")
sleep 2
c0=$(cpu_s "$pid"); t0=$(date +%s%N)
sleep $((SECONDS_RUN / 2))
rss_mid=$(rss_kb "$pid")
sleep $((SECONDS_RUN - SECONDS_RUN / 2))
c1=$(cpu_s "$pid"); t1=$(date +%s%N)
rss_end=$(rss_kb "$pid"); hwm=$(hwm_kb "$pid")
threads=$(awk '/^Threads/ { print $2 }' "/proc/$pid/status")
kill -TERM "$pid"
wait "$runner" || true

wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
ticks=$(awk -v w="$wall" 'BEGIN { printf "%d", w / 2 }')
awk -v c0="$c0" -v c1="$c1" -v w="$wall" -v n="$ticks" -v tc="$triage_cpu" -v tm="$tmax" \
  -v rm="$rss_mid" -v re="$rss_end" -v h="$hwm" -v th="$threads" 'BEGIN {
  cpu = c1 - c0
  printf "watch, 8 mock GPUs, 2 s interval, %.0f s: %.3f s CPU = %.2f%% of one core (target < 2%%)\n", w, cpu, 100 * cpu / w
  printf "  per tick %.1f ms CPU; one full triage (baseline) %.1f ms CPU: ratio %.2fx\n", 1000 * cpu / n, 1000 * tc, (cpu / n) / tc
  printf "  resident memory %d KiB at half time, %d KiB at the end (peak %d KiB; triage peak %d KiB); %d threads\n", rm, re, h, tm, th
}'
