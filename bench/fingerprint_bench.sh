#!/usr/bin/env bash
# make bench, the fingerprint's cost (issue 36; target: at most 30 ms added
# to a triage of the story). The story's SGLang server is given a large
# python environment (400 packages of 25 .py files, 8 KiB each: 80 MB of
# source, five times the per-run hashing bound, so the bound is what is
# measured) and one patched file. A triage with --state-dir takes the
# fingerprint (and reads and writes the record); the baseline is the same
# triage with --no-state, in the same run. Each figure is the median of 7.
# Usage: bench/fingerprint_bench.sh [BUILD_DIR]
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$SRC/build}"
TOOL="$BUILD/gpu-triage"
WORK="$(mktemp -d /tmp/gt-fingerprint-bench.XXXXXX)"
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$WORK"' EXIT
export GT_BUILD_DIR="$BUILD"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3

cp -r "$SRC/tests/scenarios/story" "$WORK/story"
ROOT="$WORK/story/root"
SITE=opt/venv/lib/python3.11/site-packages
mkdir -p "$ROOT/proc/sys/kernel/random"
echo "5e1f0c21-4f3a-4b6c-9d8e-7f6a5b4c3d2e" >"$ROOT/proc/sys/kernel/random/boot_id"
"$PY" - "$ROOT/$SITE" <<'PY'
import base64, hashlib, os, sys
site = sys.argv[1]
body = ("x = 1  # " + "y" * 60 + "\n") * 113  # ~8 KiB
for p in range(400):
    name = "sglang" if p == 0 else "pkg%03d" % p
    os.makedirs(f"{site}/{name}", exist_ok=True)
    lines = []
    for i in range(25):
        rel = f"{name}/m{i}.py"
        data = body.encode()
        open(f"{site}/{rel}", "wb").write(data)
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{rel},sha256={h},{len(data)}")
    d = f"{site}/{name}-1.0.dist-info"
    os.makedirs(d, exist_ok=True)
    open(f"{d}/METADATA", "w").write(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n")
    open(f"{d}/RECORD", "w").write("\n".join(lines + [f"{name}-1.0.dist-info/RECORD,,"]) + "\n")
open(f"{site}/sglang/m3.py", "a").write("# patched\n")
PY
for p in "$ROOT"/proc/[0-9]*; do
  echo "7f0000000000-7f0000001000 r--p 00000000 08:01 4242 /$SITE/sglang/m0.py" >"$p/maps"
done

# median_ms ARGS...: the median wall time of 7 triages of the story.
median_ms() {
  "$SRC/scripts/with-mock" "$WORK/story" bash -c '
    for i in 1 2 3 4 5 6 7; do
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      echo $(((t1 - t0) / 1000000))
    done' _ "$TOOL" --sample 0 --json "$@" | sort -n | sed -n 4p
}

echo "== fingerprint bench ($(nproc) cores, $(date -u +%F)) =="
base=$(median_ms --no-state)
with=$(median_ms --state-dir "$WORK/state")
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]+"/history.json")); p=d["boots"][0]["last_fingerprint"]["python"][0]["packages"]; s=[x for x in p if x["name"]=="sglang"][0]; assert [m["path"] for m in s["modified"]]==["sglang/m3.py"], s' "$WORK/state" ||
  { echo "the patched file was not found"; exit 1; }
awk -v a="$base" -v b="$with" 'BEGIN {
  printf "triage, --no-state       %6d ms\n", a
  printf "triage with fingerprint  %6d ms   ratio %.2fx, %d ms added (target <= 30 ms)\n", b, b / a, b - a
}'
