# Strings from outside never reach the terminal raw (issues 31 and 32).
# Real processes hold the mock's GPUs: one started as
# exec -a $'evil\e[31mRED\rOVERWRITE', one whose program file is named with
# an escape (its comm) and whose command line holds a line break and a fake
# table row. The triage table (narrow, --wide, --color), --oneline, free's
# plan and its --yes outcome, watch's log, a fleet whose captures retitle
# and clear the screen or are binary junk, and errors quoting hostile
# arguments: none prints a control character but its own line breaks (and
# --color's own SGR codes), each shows the text escaped, and a line break
# from outside starts no line.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

# safe FILE [sgr]: valid UTF-8, no control character but \n (with "sgr":
# and ESC [ ... m), no C1, and no line that the hostile text started.
safe() {
  "$PYTHON" - "$1" "${2:-}" <<'PY' || fail "$1 reached the terminal raw: $(head -c 3000 "$1" | cat -v)"
import re, sys
data = open(sys.argv[1], "rb").read()
if sys.argv[2] == "sgr":
    data = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
text = data.decode("utf-8")  # raises on invalid UTF-8
bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
assert not bad, "control characters %r" % bad[:5]
assert not any(l.startswith("  0 FAKE") for l in text.splitlines()), "a fake row"
PY
}

# Both names point at sleep; the second's file name becomes its comm.
evil_name=$'evil\e[31mRED\rOVERWRITE'
comm_name=$'ev\e[2Jil'
ln -s "$(command -v sleep)" "$TMP/$comm_name"
bash -c 'exec -a "$1" sleep 100000' _ "$evil_name" &
evil=$!
bash -c 'exec -a "$1" "$2" 100000' _ $'two\n  0 FAKE ROW' "$TMP/$comm_name" &
multi=$!
trap 'kill -9 $evil $multi 2>/dev/null || true; watch_cleanup' EXIT
export EVIL=$evil MULTI=$multi
for _ in $(seq 50); do
  grep -q OVERWRITE "/proc/$evil/cmdline" 2>/dev/null && grep -q FAKE "/proc/$multi/cmdline" 2>/dev/null && break
  sleep 0.1
done

# Two GPUs of the mock, each held by one of them.
"$PYTHON" - "$TMP/scenario.json" <<'PY'
import json, sys
gpu = lambda i, env: {
    "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%d" % i,
    "pci": {"bus_id": "00000000:%02X:00.0" % (0x19 + i), "device_id": "0x233010DE"},
    "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0},
    "utilization": {"gpu": [0], "memory": [0]},
    "processes": [{"pid_env": env, "used_mib": 70000, "type": "compute"}]}
json.dump({"driver_version": "550.90.07", "nvml_version": "12.550.90.07",
           "cuda_driver_version": 12040, "devices": [gpu(0, "EVIL"), gpu(1, "MULTI")]},
          open(sys.argv[1], "w"))
PY
triage() { run "$TMP/scenario.json" --root / --sample 0 --no-kernel-log "$@"; }
shown='evil\e[31mRED\rOVERWRITE'

# 1. The triage table: the name escaped, each row one line, width kept.
triage
safe "$TMP/out"
safe "$TMP/err"
expect_out_contains "$shown"
expect_out_contains 'two\n  0 FAKE ROW'
expect_out_contains 'process unknown (two\n)'  # its program (argv[0]), escaped; not its comm
grep -E "^ +[01] +$evil " "$TMP/out" | awk 'length > 100 { exit 1 }' ||
  fail "the process row is wider than the 100 columns: $(cat -v "$TMP/out")"
triage --wide
safe "$TMP/out"
expect_out_contains "$shown 100000"
triage --color
safe "$TMP/out" sgr
expect_out_contains "$shown"
triage --oneline
safe "$TMP/out"

# 2. free's plan names the process as shown.
run "$TMP/scenario.json" free --root / --sample 0 --include-busy
safe "$TMP/out"
safe "$TMP/err"
expect_out_contains "root PID $evil: $shown 100000"

# 3. watch's log: a kernel-log Xid naming the hostile process.
LOG="$TMP/kern.log"
: >"$LOG"
start_watch "$TMP/scenario.json" --root / --kernel-log "$LOG" --interval 1s --sample 200ms
wait_out " started " 10
printf '[  200.000000] NVRM: Xid (PCI:0000:19:00): 13, pid=%s, name=%s, Graphics \e]0;pwned\a\e[2J Exception\n' \
  "$evil" "$evil_name" >>"$LOG"
wait_out "gpu.xid.13" 10
stop_watch
safe "$TMP/out"
safe "$TMP/err"
expect_out_contains 'Graphics \e]0;pwned\x07\e[2J Exception'

# 4. A fleet of captures: one retitles and clears the screen, one is binary
# junk (its file name hostile too), one names its GPU with an escape.
mkdir -p "$TMP/caps"
printf '\e]0;pwned\a\e[2J' >"$TMP/caps/osc.xml"
junk=$'junk\e[2J.xml'
"$PYTHON" -c 'import sys; sys.stdout.buffer.write(bytes((i * 37 + 11) % 256 for i in range(3000)).translate(None, b"<\r\n"))' >"$TMP/caps/$junk"
sed 's|<product_name>[^<]*</product_name>|<product_name>NVIDIA \x1b[2JRTX</product_name>|' \
  "$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml/netdata-rtx-4090-535.86.05.xml" >"$TMP/caps/named.xml"
set +e
"$TOOL" fleet --smi-xml "$TMP/caps" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
safe "$TMP/out"
safe "$TMP/err"
expect_out_contains 'error="'
# The host line quotes the error (its " and \ escaped): \\e is the \e the error shows.
grep -qF 'osc.xml' "$TMP/out" && grep -qF '\\e]0;pwned\\x07\\e[2J' "$TMP/out" ||
  fail "the retitling capture is not quoted escaped: $(cat -v "$TMP/out")"
awk 'length > 600 { exit 1 }' "$TMP/out" || fail "a junk capture filled the screen: $(cat -v "$TMP/out")"
set +e
"$TOOL" --smi-xml "$TMP/caps/$junk" >"$TMP/out" 2>"$TMP/err"
set -e
safe "$TMP/err"
[[ $(wc -c <"$TMP/err") -lt 400 ]] || fail "binary junk dumped into the error: $(cat -v "$TMP/err")"
"$TOOL" --smi-xml "$TMP/caps/named.xml" --wide >"$TMP/out" 2>"$TMP/err" || true
safe "$TMP/out"
expect_out_contains 'NVIDIA \e[2JRTX'

# 5. Errors that quote a hostile argument (a file given as the history's
# folder), and a warning quoting a hostile record.
touch "$TMP/"$'s\e[2J'
for args in "data $TMP/$'no\e]0;x\a'" "--$'\e[2J'" "history --state-dir $TMP/$'s\e[2J'" \
  "free --pid $'1\e[2J'"; do
  eval "set -- $args"
  run "$TMP/scenario.json" "$@"
  [[ "$RC" != 0 ]] || fail "gpu-triage $args succeeded"
  safe "$TMP/err"
  safe "$TMP/out"
  grep -qF '\e' "$TMP/err" || fail "gpu-triage $args: the error does not show the name: $(cat -v "$TMP/err")"
done

# 6. free --yes: the outcome names it as shown too.
run "$TMP/scenario.json" free --root / --sample 0 --include-busy --pid "$evil" --yes --grace 2s
safe "$TMP/out"
safe "$TMP/err"
expect_out_contains "$shown"
mkdir -p "$TMP/"$'d\e[2J'
printf '{"schema": "x\e]0;pwned\a"}' >"$TMP/"$'d\e[2J'/history.json
run "$TMP/scenario.json" history --state-dir "$TMP/"$'d\e[2J'
safe "$TMP/out"
safe "$TMP/err"
grep -qF 'was corrupt' "$TMP/err" || fail "no warning about the corrupt record: $(cat -v "$TMP/err")"

# 7. Hosts over ssh (tests/fake_ssh): one whose nvidia-smi retitles and
# clears the screen, one whose ssh error does, and a good one among them.
export FAKE_SSH_DIR="$TMP/hosts"
mkdir -p "$FAKE_SSH_DIR/pwned1" "$FAKE_SSH_DIR/pwned2" "$FAKE_SSH_DIR/pwned3"
osc=$(printf '\e]0;pwned\a\e[2J' | base64 -w0)
printf '@@gt-gather 1\n@@gt-out nvidia-smi 0 %s\n@@gt-end\n' "$osc" >"$FAKE_SSH_DIR/pwned1/stdout"
printf '@@gt-gather 1\n@@gt-out nvidia-smi 0 %s\n@@gt-end\n' \
  "$(base64 -w0 "$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml/netdata-rtx-4090-535.86.05.xml")" \
  >"$FAKE_SSH_DIR/pwned2/stdout"
printf 'ssh: \e]0;pwned\a\e[2J: Connection refused\n' >"$FAKE_SSH_DIR/pwned3/fail"
for json in "" --json; do
  set +e
  "$TOOL" --ssh-command "$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh" --host-timeout 5s \
    --host pwned1,pwned2,pwned3 $json >"$TMP/out" 2>"$TMP/err"
  set -e
  safe "$TMP/err"
done
# JSON: ssh's words as they are (JSON escapes them); the quote of the
# unreadable output is the bounded, shown excerpt.
json_check 'd["hosts"][0]["error"].endswith("error: \"\\e]0;pwned\\x07\\e[2J\"")'
json_check 'd["hosts"][1]["verdict"] == "OK"'
json_check 'd["hosts"][2]["error"] == "ssh: \x1b]0;pwned\x07\x1b[2J: Connection refused"'
"$TOOL" --ssh-command "$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh" --host-timeout 5s \
  --host pwned1,pwned2,pwned3 >"$TMP/out" 2>"$TMP/err" || true
safe "$TMP/out"
grep -qF 'pwned3: UNKNOWN error="ssh: \e]0;pwned\x07\e[2J: Connection refused"' "$TMP/out" ||
  fail "the ssh error is not shown escaped: $(cat -v "$TMP/out")"
grep -qF 'pwned1: UNKNOWN error=' "$TMP/out" || fail "pwned1: $(cat -v "$TMP/out")"
