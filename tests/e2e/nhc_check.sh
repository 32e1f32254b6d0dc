# LBNL NHC: contrib/nhc/gpu_triage.nhc's check_gpu_triage passes on a healthy
# node, fails with gpu-triage's one line through NHC's `die`, and honours -w.
source "$(dirname "$0")/common.sh"

# nhc SCENARIO ARGS...: runs check_gpu_triage ARGS under a stand-in for
# NHC's die (which records the message); $TMP/out gets "rc=N msg=...".
nhc() {
  local scenario="$1"
  shift
  set +e
  GPU_TRIAGE="$TOOL" "$WITH_MOCK" "$scenario" bash -c '
    die() { echo "die $1 $2" >"$0.die"; }
    source "$1"; shift
    check_gpu_triage "$@"; echo "rc=$? msg=$(cat "$0.die" 2>/dev/null)"' \
    "$TMP/nhc" "$GT_SOURCE_DIR/contrib/nhc/gpu_triage.nhc" "$@" >"$TMP/out" 2>"$TMP/err"
  set -e
  rm -f "$TMP/nhc.die"
}

nhc healthy-h100x8
[[ "$(cat "$TMP/out")" == "rc=0 msg=" ]] || fail "healthy: $(cat "$TMP/out") $(cat "$TMP/err")"
nhc two-vllm-tp4   # WARNING passes without -w
[[ "$(cat "$TMP/out")" == "rc=0 msg=" ]] || fail "warning without -w: $(cat "$TMP/out")"
nhc two-vllm-tp4 -w
expect_out_contains "rc=1 msg=die 1 check_gpu_triage: WARNING gpus=8/8 critical=0 warning=2"
nhc cuda-compat-older   # CUDA cannot start there (803): critical fails without -w
grep -q "^rc=1 msg=die 1 check_gpu_triage: CRITICAL .*cuda.driver_mismatch" "$TMP/out" || fail "803: $(cat "$TMP/out")"
nhc one-gpu-lost
grep -q "^rc=1 msg=die 1 check_gpu_triage: CRITICAL " "$TMP/out" || fail "lost GPU: $(cat "$TMP/out")"
nhc healthy-h100x8 --expect-gpus 9
grep -q "^rc=1 msg=die 1 check_gpu_triage: CRITICAL .*gpu.count_mismatch" "$TMP/out" ||
  fail "expect-gpus: $(cat "$TMP/out")"
nhc healthy-h100x8 --no-such-option
grep -q "^rc=1 msg=die 1 check_gpu_triage: gpu-triage: bad options" "$TMP/out" ||
  fail "bad option: $(cat "$TMP/out")"
# A hung GPU with a long --timeout: killed after -t seconds, and says so.
nhc one-gpu-hung -t 1 --timeout 30s
grep -q "^rc=1 msg=die 1 check_gpu_triage: gpu-triage did not finish within 1s" "$TMP/out" ||
  fail "watchdog: $(cat "$TMP/out")"
