# Issue 34: each readiness fixture (items 1-6) gives its one finding (with its
# evidence, a command, and a plan step before any resume), and no other
# scenario gives any cuda.* / nccl.* finding; --python reads a job's
# site-packages and a bad --python PATH is a usage error (64).
source "$(dirname "$0")/common.sh"

declare -A WANT=(
  [cuda-no-uvm]="critical cuda.uvm_missing"
  [cuda-exclusive-held]="warning cuda.compute_mode_blocked"
  [cuda-torch-newer]="warning cuda.runtime_too_new"
  [nccl-shm-64m]="critical nccl.dev_shm_small"
  # Item 1's (e2e.cuda_libraries): a compat libcuda older than the driver,
  # and a compat libcuda on an RTX board.
  [cuda-compat-older]="critical cuda.driver_mismatch"
  [cuda-compat-rtx]="critical cuda.compat_unsupported"
)
checked=0
for dir in "$GT_SOURCE_DIR"/tests/scenarios/*/; do
  s=$(basename "$dir")
  [[ -f "$dir/scenario.json" ]] || continue
  run "$s" --json --sample 0 --no-state
  got=$("$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(f["severity"] + " " + f["id"] for f in d["findings"]
               if f["id"].split(".")[0] in ("cuda", "nccl")))' "$TMP/out" 2>/dev/null || echo "no JSON")
  [[ "$got" == "${WANT[$s]:-}" ]] || fail "$s: readiness findings '$got', want '${WANT[$s]:-}'"
  checked=$((checked + 1))
done
((checked >= 35)) || fail "only $checked scenarios checked"

run cuda-no-uvm --json --sample 0 --no-state
json_check 'd["cuda"]["devices"]["nvidia_uvm"] is False and d["cuda"]["devices"]["in_container"]'
json_check '"nvidia-modprobe -u -c=0" in d["findings"][0]["commands"][0]' "the host's fix"
json_check 'd["plan"][0]["finding_ids"] == ["cuda.uvm_missing"]' "the plan's first step"

run cuda-torch-newer --json --sample 0 --no-state
json_check '"torch 2.7.0+cu128 (/opt/venv/lib/python3.12/site-packages/torch/version.py) built for CUDA 12.8 needs driver >= 570.26; this driver supports CUDA 12.4" in d["findings"][0]["title"]'
json_check 'd["cuda"]["runtimes"][0]["pid"] == 6101 and d["cuda"]["runtimes"][0]["cuda_version"] == "12.8"'

run nccl-shm-64m --json --sample 0 --no-state
json_check 'd["cuda"]["dev_shm_bytes"] == 67108864'
json_check '"TP=8" in [f for f in d["findings"] if f["id"] == "nccl.dev_shm_small"][0]["title"]'

# --python: a job not running yet, read from its venv (nothing is run).
cp -r "$GT_SOURCE_DIR/tests/scenarios/healthy-h100x8" "$TMP/sc"
mkdir -p "$TMP/sc/root/opt/job/bin" "$TMP/sc/root/opt/job/lib/python3.11/site-packages/torch"
: >"$TMP/sc/root/opt/job/bin/python"
printf "__version__ = '2.9.0+cu130'\ncuda = '13.0'\n" \
  >"$TMP/sc/root/opt/job/lib/python3.11/site-packages/torch/version.py"
run "$TMP/sc" --json --sample 0 --no-state --python /opt/job/bin/python
expect_rc 2
json_check '[f["id"] for f in d["findings"] if f["severity"] == "critical"] == ["cuda.runtime_too_new"]' "CUDA 13 on a 12.4 driver: refused"
json_check 'any("--index-url https://download.pytorch.org/whl/cu124" in c for f in d["findings"] for c in f["commands"])'
run "$TMP/sc" --sample 0 --no-state --python /opt/job/bin/nope
expect_rc 64
grep -qF -- "--python /opt/job/bin/nope: no such file" "$TMP/err" || fail "the usage error names the path: $(cat "$TMP/err")"
run "$TMP/sc" --sample 0 --no-state --python python3
expect_rc 64
