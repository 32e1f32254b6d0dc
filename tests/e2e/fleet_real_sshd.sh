# --host through the real OpenSSH client to a real OpenSSH server (Debian's
# openssh-server) that this test starts on 127.0.0.1 with a throwaway host
# key and user key, and stops at the end. The host has no gpu-triage, so the
# gather script runs there (a fake nvidia-smi on its PATH serves a capture)
# and the answer is judged here. Also: a closed port is UNKNOWN with ssh's
# own words.
source "$(dirname "$0")/common.sh"

SSHD=/usr/sbin/sshd
if [[ ! -x "$SSHD" ]] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
  echo "SKIP: OpenSSH server or client not installed (scripts/install-deps installs openssh-server)"
  exit 0
fi
XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
S="$TMP/ssh"
mkdir -p "$S" "$TMP/remote-bin"
chmod 700 "$S"
ssh-keygen -q -t ed25519 -N '' -f "$S/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$S/user_key"
cp "$S/user_key.pub" "$S/authorized_keys"
printf '#!/bin/sh\ncat "%s"\n' "$XML/telegraf-dual-rtx-a5000-590.44.01-v13.xml" >"$TMP/remote-bin/nvidia-smi"
chmod +x "$TMP/remote-bin/nvidia-smi"
[[ "$(id -u)" == 0 ]] && mkdir -p /run/sshd  # privilege separation directory

SSHD_PID=
stop_sshd() {
  if [[ -n "$SSHD_PID" ]]; then kill "$SSHD_PID" 2>/dev/null || true; wait "$SSHD_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap stop_sshd EXIT

start_sshd() {  # PORT
  cat >"$S/sshd_config" <<CONF
ListenAddress 127.0.0.1
HostKey $S/host_key
PidFile $S/sshd.pid
AuthorizedKeysFile $S/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
SetEnv PATH=$TMP/remote-bin:/usr/local/bin:/usr/bin:/bin
CONF
  "$SSHD" -D -e -f "$S/sshd_config" -p "$1" 2>"$S/sshd.log" &
  SSHD_PID=$!
}

SSH="ssh -i $S/user_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=$S/known_hosts -o LogLevel=ERROR"
for attempt in 1 2 3 4 5; do
  PORT=$((20000 + RANDOM % 30000))
  start_sshd "$PORT"
  for _ in $(seq 50); do
    if $SSH -o BatchMode=yes -p "$PORT" -T 127.0.0.1 true 2>/dev/null; then break 2; fi
    kill -0 "$SSHD_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill "$SSHD_PID" 2>/dev/null || true
  wait "$SSHD_PID" 2>/dev/null || true
  SSHD_PID=
done
[[ -n "$SSHD_PID" ]] || fail "sshd did not start: $(cat "$S/sshd.log")"

set +e
"$TOOL" --ssh-command "$SSH -p $PORT" --host 127.0.0.1 --host-timeout 20s --json >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
json_check 'len(d["hosts"]) == 1 and d["hosts"][0]["host"] == "127.0.0.1" and d["hosts"][0]["via"] == "nvidia-smi"' "gathered over real ssh: $(head -c 300 "$TMP/out")"
json_check 'd["hosts"][0]["error"] is None and d["hosts"][0]["report"]["gpu_count"] == 2' "the capture's 2 GPUs"
json_check 'd["hosts"][0]["report"]["gpus"][1]["pci"]["bus_id"] == "00000000:C1:00.0"'
json_check 'd["hosts"][0]["report"]["hostname"] is not None and d["hosts"][0]["report"]["kernel_log"] is not None'
json_check 'len(d["hosts"][0]["report"]["disks"]) == 1 and d["hosts"][0]["report"]["disks"][0]["total_bytes"] > 0' "df over ssh"
json_check 'd["hosts"][0]["exit_code"] == '"$RC" "exit code is the host's"

# A port nothing listens on: ssh's own error, UNKNOWN, exit 3.
kill "$SSHD_PID"
wait "$SSHD_PID" 2>/dev/null || true
SSHD_PID=
set +e
"$TOOL" --ssh-command "$SSH -p $PORT" --host 127.0.0.1 --host-timeout 5s >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 3
grep -q '^127.0.0.1: UNKNOWN error="ssh: connect to host 127.0.0.1 port '"$PORT"': Connection refused"' "$TMP/out" || fail "ssh's words: $(cat "$TMP/out")"
