# Slurm: contrib/slurm/gpu-triage-slurm-check drains a node whose GPUs are
# CRITICAL (never over someone else's reason), resumes only nodes it
# drained, and as a Prolog exits 1. scontrol is a stand-in that logs.
source "$(dirname "$0")/common.sh"
SCRIPT="$GT_SOURCE_DIR/contrib/slurm/gpu-triage-slurm-check"
mkdir -p "$TMP/bin"
cat >"$TMP/bin/scontrol" <<'SH'
#!/bin/bash
# show node N -o: prints the reason in $FAKE_REASON; update: logs its args.
if [[ "$1" == show ]]; then
  echo "NodeName=$3 State=IDLE${FAKE_REASON:+ Reason=$FAKE_REASON [root@2026-01-01T00:00:00]}"
else
  echo "$*" >>"$FAKE_LOG"
fi
SH
chmod +x "$TMP/bin/scontrol"

# slurm SCENARIO REASON [MODE]: runs the script; $RC, $TMP/log (scontrol updates).
slurm() {
  : >"$TMP/log"
  set +e
  FAKE_LOG="$TMP/log" FAKE_REASON="$2" SCONTROL="$TMP/bin/scontrol" GPU_TRIAGE="$TOOL" \
    SLURMD_NODENAME=gpu01 "$WITH_MOCK" "$1" "$SCRIPT" ${3:-} >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

slurm one-gpu-lost ""
expect_rc 0
grep -q '^update NodeName=gpu01 State=DRAIN Reason=gpu-triage: CRITICAL ' "$TMP/log" ||
  fail "drain: $(cat "$TMP/log")"
slurm one-gpu-lost "" prolog
expect_rc 1
grep -q 'State=DRAIN' "$TMP/log" || fail "prolog drain"
slurm one-gpu-lost "memory test by admin"
expect_rc 0
[[ ! -s "$TMP/log" ]] || fail "overwrote someone else's reason: $(cat "$TMP/log")"
slurm healthy-h100x8 "gpu-triage: CRITICAL gpus=7/8"
expect_rc 0
[[ "$(cat "$TMP/log")" == "update NodeName=gpu01 State=RESUME" ]] || fail "resume: $(cat "$TMP/log")"
slurm healthy-h100x8 "memory test by admin"
[[ ! -s "$TMP/log" ]] || fail "resumed a node someone else drained"
slurm two-vllm-tp4 ""   # WARNING: not drained by default
[[ ! -s "$TMP/log" ]] || fail "drained on a warning"
FAKE=1 GPU_TRIAGE_DRAIN_ON=warning slurm two-vllm-tp4 ""
grep -q 'State=DRAIN Reason=gpu-triage: WARNING' "$TMP/log" || fail "drain on warning: $(cat "$TMP/log")"
