#!/usr/bin/env bash
# make bench, gpu-triage data: ratios from one run on this machine.
#  1. quick mode over 37,312 small real torch files (SpecForge layout, timed
#     as the story's job wrote them: 1.09 samples/s, the last an hour ago) vs a
#     bare stat walk (find -printf '%s\n'; target <= 3x) and vs the
#     tail-read floor (gt_data_floor: open, fstat, pread of the last 64 KiB,
#     close per file, on the scan's threads; target <= 1.5x), idle and with
#     a busy loop on every core.
#  2. --deep over several GB in the page cache vs cat to /dev/null (target
#     <= 1.25x), sha256sum, b3sum (if installed) and torch.load (if
#     python3-torch is installed).
#  2b. --values (NaN/Inf counting) over 1 GiB of float32/bfloat16 tensors vs cat.
#  3. Peak memory (max RSS) over 1,000,000 files, all bad, then all intact
#     (target <= 300 MB each).
# Usage: bench/data_bench.sh [BUILD_DIR]   (env: GT_BENCH_DIR, GT_BENCH_DEEP_GB,
#        GT_BENCH_VALUES_MB, GT_BENCH_MANY_FILES; GT_BENCH_QUICK_ONLY=1: 1 only)
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$SRC/build}"
TOOL="$BUILD/gpu-triage"
FLOOR="$BUILD/gt_data_floor"  # make bench builds it
REAL="$SRC/tests/fixtures/real/torch/specforge"
WORK="${GT_BENCH_DIR:-$(mktemp -d /tmp/gt-data-bench.XXXXXX)}"
DEEP_GB="${GT_BENCH_DEEP_GB:-3}"
MANY="${GT_BENCH_MANY_FILES:-1000000}"
BUSY=()
trap 'rm -rf "$WORK"; ((${#BUSY[@]} == 0)) || kill "${BUSY[@]}" 2>/dev/null' EXIT

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

# 1. Quick mode: 37,312 copies of the real SpecForge files, 2000 per folder,
# timed as the story's job wrote them: one sample every 1/1.09 s, the last
# an hour ago (the folders' mtimes too: when their last file was created) (the node was triaged after the crash), so quick mode's crash
# window (every CRC of the files written in the 15 minutes before the newest
# sample, docs/data.md) holds the last ~980 files, as on the node. Then the
# same files all just written (every file in the window: every CRC checked),
# the worst case, idle only.
python3 - "$REAL" "$WORK/quick" <<'PY'
import os, sys, time
src, out = sys.argv[1], sys.argv[2]
files = [open(os.path.join(src, d, f), "rb").read()
         for d in sorted(os.listdir(src)) for f in sorted(os.listdir(os.path.join(src, d)))]
n = 37312
start = time.time() - 3600 - n / 1.09
for i in range(n):
    g = i // 2000 * 2000
    d = os.path.join(out, f"rows_{g}-{g + 2000}")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"data_{i}.ckpt")
    with open(path, "wb") as f:
        f.write(files[i % len(files)])
    t = start + i / 1.09
    os.utime(path, (t, t))
# The folders' mtimes as the job leaves them: when a file was last created
# in each (its newest file), and DIR's when its last folder was.
for g in range(0, n, 2000):
    t = start + (min(g + 2000, n) - 1) / 1.09
    os.utime(os.path.join(out, f"rows_{g}-{g + 2000}"), (t, t))
t = start + (n - 1) // 2000 * 2000 / 1.09
os.utime(out, (t, t))
PY
# The three in turn, 5 times after a warm-up each (the machine's load
# drifts alike for all three); the median of each.
quick_cmd() {  # quick_cmd 0|1|2: the stat walk, the floor, quick mode
  case "$1" in
    0) find "$WORK/quick" -type f -printf '%s\n' ;;
    1) "$FLOOR" "$WORK/quick" ;;
    2) "$TOOL" data "$WORK/quick" --expect 37312 ;;
  esac
}
quick_ratios() {  # quick_ratios LABEL
  local -a ts=("" "" "")
  local c r t0 t1
  for c in 0 1 2; do quick_cmd "$c" >/dev/null 2>&1 || true; done
  for r in 1 2 3 4 5; do
    for c in 0 1 2; do
      t0=$(date +%s%N); quick_cmd "$c" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      ts[c]+="$(((t1 - t0) / 1000)) "
    done
  done
  local -a med=()
  for c in 0 1 2; do
    med+=("$(tr ' ' '\n' <<<"${ts[c]}" | grep . | sort -n | sed -n 3p | awk '{printf "%.3f", $1 / 1e6}')")
  done
  echo "quick, 37,312 files, $1:"
  echo "  stat walk (find -printf)   ${med[0]} s"
  echo "  tail-read floor            ${med[1]} s   (gt_data_floor: open, fstat, pread last 64 KiB, close)"
  echo "  gpu-triage data            ${med[2]} s   $(ratio "${med[2]}" "${med[0]}") of the stat walk (target <= 3x), $(ratio "${med[2]}" "${med[1]}") of the floor (target <= 1.5x)"
}
"$FLOOR" "$WORK/quick" >/dev/null || { echo "gt_data_floor failed on $WORK/quick" >&2; exit 1; }
quick_ratios idle
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  BUSY+=($!)
done
quick_ratios "a busy loop (yes) on each of the $(nproc) cores"
kill "${BUSY[@]}"
BUSY=()
"$TOOL" data "$WORK/quick" --expect 37312 --json 2>/dev/null |
  python3 -c 'import json, sys; c = json.load(sys.stdin)["checked"]; print("  (crash window: every CRC of", c.get("crc_checked"), "files)")' || true
find "$WORK/quick" -type f -exec touch {} +
quick_ratios "idle, every file just written (all 37,312 in the crash window, every CRC checked)"
rm -rf "$WORK/quick"
[[ "${GT_BENCH_QUICK_ONLY:-0}" != 1 ]] || exit 0

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

# 2b. --values: NaN/Inf/zero counting over VALUES_MB MiB of float tensors
# (safetensors, half float32 and half bfloat16, written by hand from
# Gaussian values), in the page cache, against cat on the same files.
VALUES_MB="${GT_BENCH_VALUES_MB:-1024}"
mkdir -p "$WORK/values"
python3 - "$WORK/values" "$VALUES_MB" <<'PY'
import json, os, random, struct, sys
out, mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(0)
f32 = struct.pack("<262144f", *(rng.gauss(0, 1) for _ in range(262144)))  # 1 MiB
bf16 = bytes(b for i in range(0, len(f32), 4) for b in f32[i + 2:i + 4])    # top halves
per_file = 16  # MiB
for i in range(max(1, mb // per_file)):
    dtype, block = ("F32", f32) if i % 2 == 0 else ("BF16", bf16 * 2)
    data = block * per_file
    n = len(data) // (4 if dtype == "F32" else 2)
    hdr = json.dumps({"h": {"dtype": dtype, "shape": [n], "data_offsets": [0, len(data)]}}).encode()
    hdr += b" " * ((8 - len(hdr) % 8) % 8)
    with open(os.path.join(out, f"part_{i}.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hdr)) + hdr + data)
PY
vbytes=$(du -sb "$WORK/values" | cut -f1)
cat "$WORK/values"/* >/dev/null  # into the page cache
t_vcat=$(median3 sh -c "cat '$WORK/values'/* > /dev/null")
t_vdeep=$(median3 "$TOOL" data "$WORK/values" --deep)
t_values=$(median3 "$TOOL" data "$WORK/values" --values)
gbs() { awk -v b="$vbytes" -v t="$1" 'BEGIN{printf "%.1f GB/s", b/t/1e9}'; }
echo "values, $(awk -v b="$vbytes" 'BEGIN{printf "%.2f", b/1e9}') GB of float32/bfloat16 safetensors, page cache:"
echo "  cat > /dev/null            ${t_vcat} s   $(gbs "$t_vcat")"
echo "  gpu-triage data --deep     ${t_vdeep} s   $(gbs "$t_vdeep")"
echo "  gpu-triage data --values   ${t_values} s   $(gbs "$t_values"), $(ratio "$t_values" "$t_vcat") of cat"
rm -rf "$WORK/values"

# 3. Peak memory (max RSS of the gpu-triage data child, /usr/bin/time -v's
# "Maximum resident set size", from getrusage) for MANY files named like
# SpecForge's: all empty first (every one reported bad, the worst case),
# then the same files all intact (a 1-element .npy each). Built with
# Python, not torch.
gen_many() {  # gen_many empty|npy
  python3 - "$WORK/many" "$MANY" "$1" <<'PY'
import os, sys
out, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"
header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\x00\x00\x80\x3f"
body = npy if kind == "npy" else b""
for i in range(n):
    d = os.path.join(out, f"rows_{i // 2000 * 2000}-{i // 2000 * 2000 + 2000}")
    if i % 2000 == 0: os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"data_{i}.ckpt"), "wb") as f: f.write(body)
PY
}
peak_rss() {  # peak_rss LABEL: runs gpu-triage data on $WORK/many, prints its max RSS
  /usr/bin/time -v -o "$WORK/rss" "$TOOL" data "$WORK/many" --expect "$MANY" --json >/dev/null || true
  local kb secs
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/rss")
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/rss")
  echo "memory, ${MANY} files ($1): max RSS $(awk -v k="$kb" 'BEGIN{printf "%.0f", k/1024}') MiB, ${secs} (target <= 300 MB)"
}
gen_many empty
peak_rss "all empty, all reported bad"
gen_many npy
peak_rss "all intact"
