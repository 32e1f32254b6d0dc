# The fleet is a command of the table (gpu-triage fleet), reached too by its
# options given to gpu-triage itself. Its parser owns its options: what a
# source cannot honour is refused, never dropped; the node's commands
# refuse the fleet's options; --expect-gpus and --no-kernel-log reach every
# host, a remote gpu-triage included; `triage` is the default's own name.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
mkdir -p "$TMP/caps"
cp "$XML/netdata-rtx-4090-535.86.05.xml" "$XML/telegraf-tesla-t4-515.105.01.xml" "$TMP/caps/"

# tool ARGS...: runs the tool with no scenario; $TMP/out, $TMP/err, $RC.
tool() {
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}
# refused WANT ARGS...: exit 64, and stderr's first line is WANT.
refused() {
  local want="$1"
  shift
  tool "$@"
  [[ $RC == 64 ]] || fail "$*: exit $RC, want 64"
  [[ "$(head -1 "$TMP/err")" == "$want" ]] || fail "$*: stderr '$(cat "$TMP/err")', want '$want'"
}
# untimed FILE: the JSON without its collection times.
untimed() { sed -E 's/"collected_at(_unix_ms)?": ("[^"]*"|[0-9]+)/T/' "$1"; }

# The same fleet with or without the word.
tool fleet --smi-xml "$TMP/caps" --json
cp "$TMP/out" "$TMP/fleet.json"
untimed "$TMP/out" >"$TMP/named.json"
rc_named=$RC
tool --smi-xml "$TMP/caps" --json
untimed "$TMP/out" | cmp -s - "$TMP/named.json" ||
  fail "gpu-triage --smi-xml DIR differs from gpu-triage fleet"
[[ $RC == "$rc_named" ]] || fail "exit $RC without the word, $rc_named with it"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="gpu-triage/fleet" and len(d["hosts"])==2, d' \
  "$TMP/fleet.json" || fail "not a fleet of two captures"
tool fleet --smi-xml="$TMP/caps" --oneline
grep -q '^summary: 2 hosts' "$TMP/out" || fail "--smi-xml=DIR --oneline: $(cat "$TMP/out")"

# help: the table lists fleet; help fleet is its own help.
tool --help
grep -q '^  fleet ' "$TMP/out" || fail "--help does not list the fleet command"
tool help fleet
grep -q '^Usage: gpu-triage fleet' "$TMP/out" || fail "help fleet: $(head -3 "$TMP/out")"

# What a fleet cannot honour is refused by name.
refused "gpu-triage fleet: unknown option '--textfile'" --host h1 --textfile "$TMP"
refused "gpu-triage fleet: unknown option '--data'" --host h1 --data "$TMP"
refused "gpu-triage fleet: --path is for hosts checked over ssh, not --smi-xml DIR" \
  fleet --smi-xml "$TMP/caps" --path /x
refused "gpu-triage fleet: --no-kernel-log is for hosts checked over ssh, not --reports DIR" \
  --reports "$TMP/caps" --no-kernel-log
refused "gpu-triage fleet: --expect-gpus: a saved report was judged where it was made; give --expect-gpus to the gpu-triage that wrote it" \
  --reports "$TMP/caps" --expect-gpus 8
refused "gpu-triage fleet: --host/--hosts-file, --smi-xml DIR and --reports DIR exclude each other" \
  --host h1 --reports "$TMP/caps"
refused "gpu-triage fleet: --smi-xml $TMP/caps/netdata-rtx-4090-535.86.05.xml: a fleet reads a folder, one file a host (one capture: gpu-triage --smi-xml FILE)" \
  fleet --smi-xml "$TMP/caps/netdata-rtx-4090-535.86.05.xml"
refused "gpu-triage fleet: --reports $TMP/caps/netdata-rtx-4090-535.86.05.xml: a fleet reads a folder, one file a host" \
  --reports "$TMP/caps/netdata-rtx-4090-535.86.05.xml"
refused "gpu-triage fleet: --reports $TMP/none: no such folder" --reports "$TMP/none"
refused "gpu-triage triage: a fleet's options are the fleet command's: gpu-triage fleet --host ..." \
  triage --host h1
for flag in --ssh-command --fanout --host-timeout; do
  refused "gpu-triage fleet: $flag is for hosts checked over ssh, not --smi-xml DIR" \
    --smi-xml "$TMP/caps" "$flag" 3
done
refused "gpu-triage fleet: a fleet needs hosts: --host/--hosts-file, --smi-xml DIR (captures) or --reports DIR (saved reports)" \
  fleet --drift
# What gpu-triage itself takes and means the same for a fleet.
tool -V --host h1
[[ $RC == 0 && "$(cat "$TMP/out")" == "gpu-triage "* ]] || fail "-V --host h1: $RC $(cat "$TMP/out" "$TMP/err")"
tool --no-color --smi-xml "$TMP/caps"
[[ $RC != 64 ]] || fail "--no-color with a fleet: $(cat "$TMP/err")"
# "-" is stdin, even where a folder is named "-".
mkdir -p "$TMP/cwd/-"
cp "$TMP/caps/"* "$TMP/cwd/-/"
(cd "$TMP/cwd" && "$TOOL" --smi-xml - --oneline <"$XML/netdata-rtx-4090-535.86.05.xml" >"$TMP/out") || true
grep -q '^OK gpus=1/- ' "$TMP/out" || fail "--smi-xml - beside a folder named -: $(cat "$TMP/out")"
# The node's commands do not take the fleet's options.
refused "gpu-triage serve: unknown option '--host'" serve --host h1
refused "gpu-triage watch: unknown option '--reports'" watch --reports "$TMP/caps"
refused "gpu-triage serve: --smi-xml $TMP/caps is a folder: a fleet of captures (gpu-triage fleet --smi-xml DIR)" \
  serve --smi-xml "$TMP/caps"

# --expect-gpus on every path: a capture folder, and a host whose own
# gpu-triage answers (it is given the option) or whose nvidia-smi does.
tool fleet --smi-xml "$TMP/caps" --expect-gpus 8 --json
"$PYTHON" - "$TMP/out" <<'PY' || fail "captures with --expect-gpus 8: $(head -c 600 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["hosts"]:
    ids = [f["id"] for f in h["report"]["findings"]]
    assert "gpu.count_mismatch" in ids and h["verdict"] == "CRITICAL", (h["host"], ids)
PY
export FAKE_SSH_DIR="$TMP/hosts"
FAKE_SSH="$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh"
mkdir -p "$FAKE_SSH_DIR/native1/bin" "$FAKE_SSH_DIR/gather1/bin"
touch "$FAKE_SSH_DIR/native1/exec" "$FAKE_SSH_DIR/gather1/exec"
# The remote gpu-triage records the options it was given.
printf '#!/bin/sh\necho "$@" >"%s/native-args"\nexec "%s" --smi-xml "%s" "$@"\n' "$TMP" "$TOOL" \
  "$XML/netdata-rtx-4090-535.86.05.xml" >"$FAKE_SSH_DIR/native1/bin/gpu-triage"
printf '#!/bin/sh\ncat "%s"\n' "$XML/netdata-rtx-4090-535.86.05.xml" \
  >"$FAKE_SSH_DIR/gather1/bin/nvidia-smi"
# A dmesg that would show an Xid: with --no-kernel-log it is never run.
printf '#!/bin/sh\necho ran >"%s/dmesg-ran"\necho "[ 1.0] NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus."\n' \
  "$TMP" >"$FAKE_SSH_DIR/gather1/bin/dmesg"
chmod +x "$FAKE_SSH_DIR"/*/bin/*
tool --ssh-command "$FAKE_SSH" --host native1,gather1 --expect-gpus 8 --no-kernel-log --json
"$PYTHON" - "$TMP/out" <<'PY' || fail "hosts with --expect-gpus 8 --no-kernel-log: $(head -c 800 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["hosts"]:
    ids = [f["id"] for f in h["report"]["findings"]]
    assert "gpu.count_mismatch" in ids and h["verdict"] == "CRITICAL", (h["host"], h["via"], ids)
    assert not any(i.startswith("gpu.xid") for i in ids), (h["host"], ids)
PY
grep -q -- "--expect-gpus 8 --no-kernel-log" "$TMP/native-args" ||
  fail "the remote gpu-triage was run with: $(cat "$TMP/native-args")"
[[ ! -e "$TMP/dmesg-ran" ]] || fail "--no-kernel-log: the gather script still read the kernel log"
# Without it the same host's Xid is read: the test above can fail.
tool --ssh-command "$FAKE_SSH" --host gather1 --json
grep -q '"gpu.xid.79"' "$TMP/out" || fail "gather1's kernel log was not read: $(head -c 600 "$TMP/out")"

# A --path is data on the remote side, whatever it holds: a placeholder of
# the gather script's template, a quote, a command substitution.
for p in "/x@ARGS@;touch $TMP/pwned1;#" "/y'; touch $TMP/pwned2; '" "/z\$(touch $TMP/pwned3)" \
  "/w@KLOG@"; do
  tool --ssh-command "$FAKE_SSH" --host gather1 --path "$p" --json
  [[ $RC != 64 ]] || fail "--path $p: $(cat "$TMP/err")"
  "$PYTHON" - "$TMP/out" "$p" <<'PY' || fail "--path $p did not reach df as itself: $(head -c 600 "$TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
paths = [x["path"] for x in d["hosts"][0]["report"]["disks"]]
assert paths == ["/", sys.argv[2]], paths
PY
done
for n in 1 2 3; do [[ ! -e "$TMP/pwned$n" ]] || fail "a --path ran as a command on the host ($n)"; done

# `triage` is the default command's name in the table: the same judgement
# (the disks' free bytes move between two runs; the rest is compared).
run healthy-h100x8 --json --sample 0
cp "$TMP/out" "$TMP/default.json"
run healthy-h100x8 triage --json --sample 0
"$PYTHON" - "$TMP/default.json" "$TMP/out" <<'PY' || fail "gpu-triage triage differs from gpu-triage"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("verdict", "exit_code", "findings", "plan"):
    assert a[k] == b[k], k
PY
echo "ok"
