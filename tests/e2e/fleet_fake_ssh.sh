# --host over a fake ssh: recorded hosts judged here, a host running
# gpu-triage itself, the real gather script, and slow, hanging, failing and
# unknown hosts; one line per host, a summary, JSON, the worst exit code.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
TXT="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-text"
export FAKE_SSH_DIR="$TMP/hosts"
FAKE_SSH="$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh"
mkdir -p "$FAKE_SSH_DIR"

b64() { base64 | tr -d '\n'; }
# record HOST SMI_FILE SMI_RC [KERNEL_LOG_TEXT]: a recorded gather answer.
record() {
  mkdir -p "$FAKE_SSH_DIR/$1"
  {
    echo "@@gt-gather 1"
    echo "@@gt-out nvidia-smi $3 $(b64 <"$2")"
    echo "@@gt-out hostname 0 $(printf '%s' "$1" | b64)"
    echo "@@gt-out kernel-log dmesg $(printf '%s' "${4:-}" | b64)"
    echo "@@gt-out df 0 $(printf 'Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 100000000 10000000 90000000 10%% /\n' | b64)"
    echo "@@gt-out df-i 0 $(printf 'Filesystem Inodes IUsed IFree IUse%% Mounted on\n/dev/sda1 1000000 1000 999000 1%% /\n' | b64)"
    echo "@@gt-end"
  } >"$FAKE_SSH_DIR/$1/stdout"
}
record ok1 "$XML/netdata-rtx-4090-535.86.05.xml" 0
record ok2 "$XML/netdata-rtx-4090-535.86.05.xml" 0
record warn1 "$XML/telegraf-tesla-t4-515.105.01.xml" 0
record lost1 "$TXT/issue-marian251-error-gpu-is-lost.txt" 15
record xid1 "$XML/netdata-rtx-4090-535.86.05.xml" 0 \
  "[ 1234.5] NVRM: Xid (PCI:0000:84:00): 79, pid=1234, GPU has fallen off the bus."
record slow1 "$XML/netdata-rtx-4090-535.86.05.xml" 0
echo 2 >"$FAKE_SSH_DIR/slow1/delay"
mkdir -p "$FAKE_SSH_DIR/hang1" "$FAKE_SSH_DIR/refused1"
touch "$FAKE_SSH_DIR/hang1/hang"
echo "ssh: connect to host refused1 port 22: Connection refused" >"$FAKE_SSH_DIR/refused1/fail"
# A host with gpu-triage installed: it answers with its own --json report.
mkdir -p "$FAKE_SSH_DIR/native1/bin"
touch "$FAKE_SSH_DIR/native1/exec"
printf '#!/bin/sh\nexec "%s" --smi-xml "%s" "$@"\n' "$TOOL" \
  "$XML/telegraf-dual-rtx-a5000-590.44.01-v13.xml" >"$FAKE_SSH_DIR/native1/bin/gpu-triage"
chmod +x "$FAKE_SSH_DIR/native1/bin/gpu-triage"
# A host without it: the real gather script runs (here), with a fake nvidia-smi.
mkdir -p "$FAKE_SSH_DIR/gather1/bin"
touch "$FAKE_SSH_DIR/gather1/exec"
printf '#!/bin/sh\ncat "%s"\n' "$XML/pai-tesla-k80-x4-azure-430.26-ecc-retired.xml" \
  >"$FAKE_SSH_DIR/gather1/bin/nvidia-smi"
chmod +x "$FAKE_SSH_DIR/gather1/bin/nvidia-smi"

fleet() {
  local t0 t1
  t0=$(date +%s%N)
  set +e
  "$TOOL" --ssh-command "$FAKE_SSH -p 2222" --host-timeout 3s "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  t1=$(date +%s%N)
  WALL_MS=$(((t1 - t0) / 1000000))
}

printf 'ok2\n# comment\nwarn1, lost1\n' >"$TMP/hostfile"
fleet --host ok1 --hosts-file "$TMP/hostfile" --host xid1,slow1,hang1,refused1,nosuch1 \
  --host native1,gather1 --fanout 4
expect_rc 2
[[ $WALL_MS -lt 6000 ]] || fail "took $WALL_MS ms with a 3 s host deadline"
[[ "$(sed -n 1p "$TMP/out")" == "ok1: OK gpus=1/0 critical=0 warning=0 driver=535.86.05" ]] || fail "line 1: $(sed -n 1p "$TMP/out")"
[[ "$(grep '^ok2: ' "$TMP/out" | cut -d' ' -f2-)" == "$(grep '^ok1: ' "$TMP/out" | cut -d' ' -f2-)" ]] || fail "identical healthy hosts, identical text"
[[ "$(cut -d: -f1 "$TMP/out" | head -11 | tr '\n' ' ')" == "ok1 xid1 slow1 hang1 refused1 nosuch1 native1 gather1 ok2 warn1 lost1 " ]] || fail "order: --host values, then the hosts file"
expect_out_contains "warn1: WARNING gpus=1/0 critical=0 warning=1 driver=515.105.01 ids=persistence.off"
expect_out_contains "lost1: CRITICAL gpus=?/0 critical=1 warning=0 ids=gpu.lost"
expect_out_contains "xid1: CRITICAL"
grep -q "^xid1: .*gpu.xid.79" "$TMP/out" || fail "Xid 79 from the remote kernel log: $(grep xid1 "$TMP/out")"
expect_out_contains "slow1: OK"
grep -q '^hang1: UNKNOWN error="no answer within 3 s, ssh killed' "$TMP/out" || fail "hung host: $(grep hang1 "$TMP/out")"
expect_out_contains 'refused1: UNKNOWN error="ssh: connect to host refused1 port 22: Connection refused"'
expect_out_contains 'nosuch1: UNKNOWN error="ssh: Could not resolve hostname nosuch1: Name or service not known"'
# Its gpu-triage judged a capture there: no PCI bus read, as its --oneline says.
grep -q "^native1: OK gpus=2/- .*driver=590.44.01" "$TMP/out" || fail "native: $(grep native1 "$TMP/out")"
grep -q "^gather1: [A-Z]* gpus=4/" "$TMP/out" || fail "gathered: $(grep gather1 "$TMP/out")"
grep -qE '[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]+ ms' "$TMP/out" && fail "no times in the output"
expect_out_contains "summary: 11 hosts: 4 ok, 2 warning, 2 critical, 3 unknown"
expect_out_contains "summary: most common findings:"
grep -q -- "-o BatchMode=yes -o ConnectTimeout=1 -T -- ok1 sh -c" "$FAKE_SSH_DIR/calls.log" || fail "ssh argv: $(head -1 "$FAKE_SSH_DIR/calls.log")"
grep -q -- "-p 2222" "$FAKE_SSH_DIR/calls.log" || fail "--ssh-command options kept"

fleet --host ok1,gather1,native1,hang1 --json
expect_rc 3
json_check '[h["host"] for h in d["hosts"]] == ["ok1", "gather1", "native1", "hang1"]' "input order"
json_check '[h["via"] for h in d["hosts"]] == ["nvidia-smi", "nvidia-smi", "gpu-triage", "ssh"]'
json_check 'd["hosts"][0]["report"]["gpus"][0]["name"] == "NVIDIA GeForce RTX 4090" and d["hosts"][0]["exit_code"] == 0'
json_check 'd["hosts"][1]["report"]["gpu_count"] == 4 and d["hosts"][1]["report"]["gpus"][1]["ecc"]["errors"]["corrected"]["aggregate"] == 34' "gathered values"
json_check 'd["hosts"][1]["report"]["kernel_log"]["sources"][0]["name"].endswith("(over ssh)")'
json_check 'd["hosts"][2]["report"]["gpu_count"] == 2 and d["hosts"][2]["verdict"] == "OK"' "merged native report (one utilization reading: no idleness claimed)"
json_check 'd["hosts"][3]["verdict"] == "UNKNOWN" and d["hosts"][3]["report"] is None and "ssh killed" in d["hosts"][3]["error"]'

fleet --host ok1,ok2 --exit-codes npd
expect_rc 0
fleet --host ok1,refused1 --exit-codes npd
expect_rc 2
