# 200 fake hosts at the default fan-out of 32, ten of them hanging (the
# first ten, so they hold ten slots for the whole deadline): the run ends
# within the per-host deadline plus a small margin, the hung hosts are
# UNKNOWN, and the exit code is the worst host's (UNKNOWN, 3). The deadline
# is 4 s; the margin is counted from the slower of the deadline and a run of
# the 190 answering hosts alone, since starting 190 fake ssh processes can
# itself take seconds on a 2-core VM.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
export FAKE_SSH_DIR="$TMP/hosts"
mkdir -p "$FAKE_SSH_DIR/template"
{
  echo "@@gt-gather 1"
  echo "@@gt-out nvidia-smi 0 $(base64 -w0 <"$XML/netdata-rtx-4090-535.86.05.xml")"
  echo "@@gt-out kernel-log dmesg "
  echo "@@gt-end"
} >"$FAKE_SSH_DIR/template/stdout"
hosts=()
for i in $(seq -w 1 200); do
  mkdir -p "$FAKE_SSH_DIR/n$i"
  if ((10#$i <= 10)); then touch "$FAKE_SSH_DIR/n$i/hang"; else
    ln -s "$FAKE_SSH_DIR/template/stdout" "$FAKE_SSH_DIR/n$i/stdout"
  fi
  hosts+=("n$i")
done
printf '%s\n' "${hosts[@]}" >"$TMP/hosts.txt"

# fleet ARGS...: runs the tool over the fake ssh; wall time in $WALL_MS.
fleet() {
  local t0
  t0=$(date +%s%N)
  set +e
  "$TOOL" --ssh-command "$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  WALL_MS=$((($(date +%s%N) - t0) / 1000000))
}

# Baseline: the 190 answering hosts alone (bounded by starting 190 fake ssh
# processes, ~45 ms each on the 2-core VM).
grep -v -E '^n0(0[1-9]|10)$' "$TMP/hosts.txt" >"$TMP/answering.txt"
fleet --hosts-file "$TMP/answering.txt" --host-timeout 4s
expect_rc 0
BASE_MS=$WALL_MS

fleet --hosts-file "$TMP/hosts.txt" --host-timeout 4s
expect_rc 3
LIMIT_MS=$(((BASE_MS > 4000 ? BASE_MS : 4000) + 1500))
[[ $WALL_MS -lt $LIMIT_MS ]] || fail "200 hosts took $WALL_MS ms; want < max(answering hosts alone $BASE_MS ms, deadline 4000 ms) + 1500 ms"
[[ $(grep -c '^n[0-9]*: OK ' "$TMP/out") == 190 ]] || fail "190 OK hosts: $(grep -c ': OK ' "$TMP/out")"
[[ $(grep -c '^n0[01][0-9]: UNKNOWN error="no answer within 4 s, ssh killed"' "$TMP/out") == 10 ]] || fail "10 hung hosts"
expect_out_contains "summary: 200 hosts: 190 ok, 0 warning, 0 critical, 10 unknown"
pgrep -f "$FAKE_SSH_DIR" >/dev/null && fail "a fake ssh is still running"
echo "200 hosts (10 hung) in $WALL_MS ms; the 190 answering alone in $BASE_MS ms"
