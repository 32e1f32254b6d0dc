#!/usr/bin/env bash
# make bench: the clean build of what `make demo` needs (the tool and the
# current driver's mock), from a fresh clone of HEAD, with the project's
# build settings against the settings before the build was reorganised
# (every file on its own, no precompiled headers, CMake's RelWithDebInfo:
# -O2 -g), measured in the same run on this machine. Then the rest of
# `make check`'s build (unit tests, fuzz replays, NVIDIA checks) with the
# project's settings. Wall-clock seconds and CPU seconds (user + sys of the
# build's processes); the ratio is baseline / project.
#   bench/build_bench.sh              both
#   BUILD_BENCH_BASELINE=0 bench/...  the project's settings only
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gt-build-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
git clone -q "$SRC" "$tmp/src"

calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }

# Seconds of wall clock and of CPU for one command (bash's times builtin
# counts the children's CPU).
measure() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$tmp/log" 2>&1 || { tail -20 "$tmp/log"; exit 1; }
  end=$(date +%s.%N)
  wall=$(calc "$end - $start")
}
# CPU seconds of the finished children so far: `times` runs in this shell
# (a command substitution would be a fresh process with none).
cpu_of() {
  times >"$tmp/times"
  cpu=$(tail -1 "$tmp/times" | awk '{split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]);
    sub("s","",s[2]); printf "%.1f", u[1]*60+u[2]+s[1]*60+s[2]}')
}
build() {  # DIR [cmake options...]
  local dir="$1"
  shift
  cmake -S "$tmp/src" -B "$dir" -G Ninja "$@" >/dev/null &&
    cmake --build "$dir" -j "$JOBS" --target gpu-triage mock_nvml_current
}

cpu_of; c0=$cpu
measure build "$tmp/project"
cpu_of; c1=$cpu
project_wall=$wall
project_cpu=$(calc "$c1 - $c0")
printf 'build of the demo (tool + mock), %d jobs, fresh clone of %s\n' "$JOBS" \
  "$(git -C "$SRC" rev-parse --short HEAD)"
printf '  project settings (unity, PCH, -O1 -g1)      %7.1f s wall %7.1f s CPU\n' \
  "$project_wall" "$project_cpu"
if [[ "${BUILD_BENCH_BASELINE:-1}" != 0 ]]; then
  measure build "$tmp/baseline" -DGT_UNITY=OFF -DGT_PCH=OFF -DGT_FULL_DEBUG_INFO=ON
  cpu_of; c2=$cpu
  base_cpu=$(calc "$c2 - $c1")
  printf '  baseline (file by file, no PCH, -O2 -g)     %7.1f s wall %7.1f s CPU   %.2fx wall, %.2fx CPU\n' \
    "$wall" "$base_cpu" "$(calc "$wall / $project_wall")" \
    "$(calc "$base_cpu / $project_cpu")"
  cpu_of; c1=$cpu
fi
measure cmake --build "$tmp/project" -j "$JOBS"
cpu_of; c3=$cpu
printf '  the rest of make check'"'"'s build (tests)      %7.1f s wall %7.1f s CPU\n' \
  "$wall" "$(calc "$c3 - $c1")"
