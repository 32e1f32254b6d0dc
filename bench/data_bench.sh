#!/usr/bin/env bash
# make bench, gpu-triage data: ratios from one run on this machine.
#  1. quick mode over 37,312 small real torch files (SpecForge layout) vs a
#     bare stat walk (find -printf '%s\n'); target <= 3x.
#  2. --deep over several GB in the page cache vs cat to /dev/null (target
#     <= 1.25x), sha256sum, b3sum (if installed) and torch.load (if
#     python3-torch is installed).
#  3. Peak memory (max RSS) over many empty files.
# Usage: bench/data_bench.sh [BUILD_DIR]   (env: GT_BENCH_DIR, GT_BENCH_DEEP_GB,
#        GT_BENCH_MANY_FILES)
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$SRC/build}"
TOOL="$BUILD/gpu-triage"
REAL="$SRC/tests/fixtures/real/torch/specforge"
WORK="${GT_BENCH_DIR:-$(mktemp -d /tmp/gt-data-bench.XXXXXX)}"
DEEP_GB="${GT_BENCH_DEEP_GB:-3}"
MANY="${GT_BENCH_MANY_FILES:-1000000}"
trap 'rm -rf "$WORK"' EXIT

# median of 3 wall times (seconds) of a command, after one warm-up run.
median3() {
  "$@" >/dev/null 2>&1 || true
  local ts=()
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    ts+=("$(( (t1 - t0) / 1000 ))")
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p | awk '{printf "%.3f", $1 / 1e6}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

echo "== gpu-triage data bench ($(nproc) cores, $(date -u +%F)) =="

# 1. Quick mode: 37,312 copies of the real SpecForge files, 2000 per folder.
python3 - "$REAL" "$WORK/quick" <<'PY'
import os, sys
src, out = sys.argv[1], sys.argv[2]
files = [open(os.path.join(src, d, f), "rb").read()
         for d in sorted(os.listdir(src)) for f in sorted(os.listdir(os.path.join(src, d)))]
for i in range(37312):
    g = i // 2000 * 2000
    d = os.path.join(out, f"rows_{g}-{g + 2000}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"data_{i}.ckpt"), "wb") as f:
        f.write(files[i % len(files)])
PY
t_find=$(median3 find "$WORK/quick" -type f -printf '%s\n')
t_quick=$(median3 "$TOOL" data "$WORK/quick" --expect 37312)
echo "quick, 37,312 files:  find -printf ${t_find} s   gpu-triage data ${t_quick} s   $(ratio "$t_quick" "$t_find") (target <= 3x)"
rm -rf "$WORK/quick"

# 2. Deep mode over DEEP_GB GB held in the page cache.
mkdir -p "$WORK/deep"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  kind="torch.save (make-torch-corpus.py)"
  count=$(( DEEP_GB * 1000 / 25 ))
  /usr/bin/python3 "$SRC/bench/tools/make-torch-corpus.py" "$WORK/deep" --layout specforge \
    --count "$count" --hidden 4096 --seq 700:900 >/dev/null
else
  kind="stored zip records (python3-torch not installed)"
  python3 - "$WORK/deep" "$DEEP_GB" <<'PY'
import os, sys, zipfile
out, gb = sys.argv[1], int(sys.argv[2])
blob = os.urandom(25 * 1000 * 1000)
os.makedirs(os.path.join(out, "rows_0-2000"), exist_ok=True)
for i in range(gb * 40):
    with zipfile.ZipFile(os.path.join(out, "rows_0-2000", f"data_{i}.ckpt"), "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"sample_{i}/hidden.bin", blob)
PY
fi
bytes=$(du -sb "$WORK/deep" | cut -f1)
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$WORK/deep" -type f -print0)
cat "${files[@]}" > /dev/null  # into the page cache
t_cat=$(median3 cat "${files[@]}")
t_deep=$(median3 "$TOOL" data "$WORK/deep" --deep)
t_sha=$(median3 sha256sum "${files[@]}")
echo "deep, $(awk -v b="$bytes" 'BEGIN{printf "%.2f", b/1e9}') GB of ${kind} in ${#files[@]} files, page cache:"
echo "  cat > /dev/null          ${t_cat} s"
echo "  gpu-triage data --deep   ${t_deep} s   $(ratio "$t_deep" "$t_cat") of cat (target <= 1.25x), $(awk -v b="$bytes" -v t="$t_deep" 'BEGIN{printf "%.1f", b/t/1e9}') GB/s"
echo "  sha256sum                ${t_sha} s   $(ratio "$t_sha" "$t_deep") of gpu-triage"
if command -v b3sum >/dev/null; then
  t_b3=$(median3 b3sum "${files[@]}")
  echo "  b3sum                    ${t_b3} s   $(ratio "$t_b3" "$t_deep") of gpu-triage"
fi
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  t0=$(date +%s%N)
  /usr/bin/python3 -c 'import sys, torch
for p in sys.argv[1:]: torch.load(p)' "${files[@]}"
  t1=$(date +%s%N)
  t_load=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
  echo "  torch.load (each file)   ${t_load} s   $(ratio "$t_load" "$t_deep") of gpu-triage (and it checks no CRC)"
fi
rm -rf "$WORK/deep"

# 3. Peak memory for MANY files (empty, so every one is reported bad: the worst case).
python3 - "$WORK/many" "$MANY" <<'PY'
import os, sys
out, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(out, f"rows_{i // 2000 * 2000}-{i // 2000 * 2000 + 2000}")
    if i % 2000 == 0: os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"data_{i}.ckpt"), "wb").close()
PY
/usr/bin/time -f '%M %e' -o "$WORK/rss" "$TOOL" data "$WORK/many" --json >/dev/null || true
read -r rss_kb secs < <(tail -1 "$WORK/rss")
echo "memory, ${MANY} files (all empty, all reported): max RSS $(awk -v k="$rss_kb" 'BEGIN{printf "%.0f", k/1024}') MiB, ${secs} s"
