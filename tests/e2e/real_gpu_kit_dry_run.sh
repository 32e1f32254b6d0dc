# The real-GPU check's dry run (issue 50, docs/real-gpu.md): the kit made
# from build/gpu-triage (make real-gpu-kit makes it from the portable binary;
# scripts/check-portable checks that one), run start to end as on the
# device: env -i with PATH=/usr/bin:/bin, nothing of the repository but the
# kit, against the mock NVML and libcuda (tests/fixtures/real-gpu-check/
# dry-run.json), a fake nvidia-smi printing the matching capture, and a
# stand-in torch (tests/fixtures/real-gpu-check/stand-in-torch) whose
# process the mock lists. Every step must run and pass, the kernel log's
# may be SKIP where this machine hides /dev/kmsg. Then the hostile cases:
# no torch, no nvidia-smi, --out not writable or already used, no
# gpu-triage in the kit.
source "$(dirname "$0")/common.sh"

fixtures="$GT_SOURCE_DIR/tests/fixtures/real-gpu-check"
"$GT_SOURCE_DIR/scripts/make-real-gpu-kit" "$TOOL" "$TMP/kit" >/dev/null
mkdir -p "$TMP/bin" "$TMP/home"
cp "$fixtures/dry-run.xml" "$TMP/bin/smi.xml"
cat >"$TMP/bin/nvidia-smi" <<'SH'
#!/bin/bash
# The dry run's nvidia-smi: the capture of the mock's GPU.
case "$*" in
  "-q -x") cat "$(dirname "$0")/smi.xml" ;;
  "-q") sed 's/<[^>]*>//g' "$(dirname "$0")/smi.xml" ;;
  *) echo "fake nvidia-smi: '$*' is not faked" >&2; exit 2 ;;
esac
SH
chmod +x "$TMP/bin/nvidia-smi"

# check PATH PYTHONPATH ARGS...: the kit's check in the device's bare
# environment, plus the mock's own variables.
check() {
  local path="$1" pythonpath="$2"
  shift 2
  set +e
  # shellcheck disable=SC2016
  "$WITH_MOCK" "$fixtures/dry-run.json" bash -c 'p="$1" pp="$2"; shift 2
    exec env -i PATH="$p" HOME="$0/home" PYTHONPATH="$pp" PYTHONDONTWRITEBYTECODE=1 MOCK_NVML_SCENARIO="$MOCK_NVML_SCENARIO" \
      GPU_TRIAGE_NVML_LIB="$GPU_TRIAGE_NVML_LIB" GPU_TRIAGE_CUDA_LIB="$GPU_TRIAGE_CUDA_LIB" \
      "$0/kit/real-gpu-check" "$@"' "$TMP" "$path" "$pythonpath" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

# 1. The whole check, start to end.
t0=$(date +%s)
check "$TMP/bin:/usr/bin:/bin" "$fixtures/stand-in-torch" --out "$TMP/rgc"
echo "dry run: $(($(date +%s) - t0)) s"
# The readiness prediction reads this machine's /dev: where NVIDIA's device
# nodes appear (NVIDIA's own NVML, run as root by tests/nvidia, makes
# /dev/nvidiactl) without /dev/nvidia-uvm, it rightly predicts that CUDA
# fails, which the stand-in torch does not know: that FAIL, and no other,
# is this machine's, not the check's.
readiness_ok="predicted CUDA starts; torch 0.0+stand-in (CUDA 12.8) initialised CUDA"
host_nodes="^FAIL readiness: predicted CUDA fails \(((cuda\.uvm_missing|cuda\.device_node_missing)(, )?)+\);"
if grep -qE "$host_nodes" "$TMP/out"; then
  echo "note: this machine has NVIDIA device nodes: $(grep "readiness:" "$TMP/out")"
  expect_rc 1
  expect_out_contains ", 1 FAIL, "
else
  expect_rc 0
  expect_out_contains "PASS readiness: $readiness_ok"
  expect_out_contains ", 0 FAIL, "
fi
for step in triage compare speed deadline cuda bundle process free watch; do
  expect_out_contains "PASS $step: "
done
grep -qE "^(PASS|SKIP) kernel-log: " "$TMP/out" || fail "kernel-log: $(cat "$TMP/out")"
expect_out_contains "PASS compare: 1 GPU(s) matched by UUID"
expect_out_contains "0 mismatch(es)"
grep -qE "^PASS process: PID [0-9]+ on GPU 0: 2.50 GiB \(torch 2.00 GiB\), user $(id -un), .*real-gpu-holder.py" "$TMP/out" ||
  fail "process: $(grep process: "$TMP/out")"
[[ -f "$TMP/rgc/summary.txt" && -f "$TMP/rgc/raw/triage.out" && -f "$TMP/rgc/bundle.tar.gz" ]] ||
  fail "results missing: $(ls -R "$TMP/rgc")"
"$PYTHON" - "$TMP/rgc/results.json" <<'PY' || fail "results.json: $(head -c 2000 "$TMP/rgc/results.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"], d["counts"]
assert all(s["status"] != "FAIL" or s["step"] == "readiness" for s in d["steps"]), d["counts"]
assert [s["step"] for s in d["steps"]] == ["triage", "compare", "speed", "deadline", "kernel-log",
    "cuda", "bundle", "readiness", "process", "free", "watch"]
free = next(s for s in d["steps"] if s["step"] == "free")["figures"]["act"]
assert free["gpus"][0]["used_before_bytes"] - free["gpus"][0]["used_after_bytes"] == 2560 * 2**20, free["gpus"]
PY
holder="$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$TMP/rgc/holder.json")"
if kill -0 "$holder" 2>/dev/null; then fail "the holder $holder outlived the check"; fi

# 2. No torch (this machine's python3 has none, or a CPU-only one): the
#    steps with a CUDA process are SKIP with the reason, never PASS.
check "$TMP/bin:/usr/bin:/bin" "" --only readiness,process,free --out "$TMP/notorch"
expect_rc 0
for step in readiness process free; do
  grep -qE "^SKIP $step: .*(import torch|without CUDA)" "$TMP/out" || fail "$step: $(cat "$TMP/out")"
done

# 3. No nvidia-smi: the steps that need it are SKIP, saying so (where
#    /usr/bin has none: tests/nvidia never installs NVIDIA's).
if ! PATH=/usr/bin:/bin command -v nvidia-smi >/dev/null; then
  check "/usr/bin:/bin" "" --only compare,speed --out "$TMP/nosmi"
  expect_rc 0
  expect_out_contains "SKIP compare: nvidia-smi is not on PATH"
  expect_out_contains "SKIP speed: nvidia-smi is not on PATH"
fi

# 4. --out not writable, or holding an earlier run's results, no gpu-triage
#    in the kit: exit 2 before any step.
check "/usr/bin:/bin" "" --only deadline --out "$TMP/rgc"
expect_rc 2
grep -q "holds an earlier run's results" "$TMP/err" || fail "$(cat "$TMP/err")"
touch "$TMP/file"
check "/usr/bin:/bin" "" --out "$TMP/file/rgc"
expect_rc 2
grep -q "cannot write --out $TMP/file/rgc" "$TMP/err" || fail "$(cat "$TMP/err")"
rm "$TMP/kit/gpu-triage"
check "/usr/bin:/bin" "" --out "$TMP/nokit"
expect_rc 2
grep -q "no gpu-triage at $TMP/kit/gpu-triage" "$TMP/err" || fail "$(cat "$TMP/err")"
