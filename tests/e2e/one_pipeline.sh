# One collect pipeline (docs/design.md): the same capture gives the same
# findings through --smi-xml FILE, --smi-xml DIR, --host (the gather answer
# over a fake ssh) and --reports DIR; --expect-gpus is honoured on every
# path; a capture prints gpus=N/- in every mode.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"
export FAKE_SSH_DIR="$TMP/hosts"
FAKE_SSH="$GT_SOURCE_DIR/tests/fake_ssh/fake-ssh"
b64() { base64 | tr -d '\n'; }
# record HOST SMI_FILE: a gather answer carrying only the capture, an empty
# kernel log and a roomy disk (what the capture path cannot read either).
record() {
  mkdir -p "$FAKE_SSH_DIR/$1"
  {
    echo "@@gt-gather 1"
    echo "@@gt-out nvidia-smi 0 $(b64 <"$2")"
    echo "@@gt-out hostname 0 $(printf '%s' "$1" | b64)"
    echo "@@gt-out kernel-log dmesg $(printf '' | b64)"
    echo "@@gt-out df 0 $(printf 'Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 100000000 10000000 90000000 10%% /\n' | b64)"
    echo "@@gt-out df-i 0 $(printf 'Filesystem Inodes IUsed IFree IUse%% Mounted on\n/dev/sda1 1000000 1000 999000 1%% /\n' | b64)"
    echo "@@gt-end"
  } >"$FAKE_SSH_DIR/$1/stdout"
}

# ids FILE [HOST]: the sorted "severity id" lines of a report or of one host
# of a fleet report (the capture-only warning about unread sources differs by
# origin in words only and is not a finding).
ids() {
  "$PYTHON" - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
if "hosts" in j:
    j = [h for h in j["hosts"] if h["host"] == sys.argv[2]][0]["report"]
print("\n".join(sorted(f'{f["severity"]} {f["id"]}' for f in j["findings"])))
PY
}

n=0
for cap in netdata-rtx-4090-535.86.05.xml telegraf-tesla-t4-515.105.01.xml \
  pai-tesla-k80-x4-azure-430.26-ecc-retired.xml datakit-tesla-v100-pcie-32gb-460.39-4procs.xml; do
  n=$((n + 1))
  host="h$n"
  mkdir -p "$TMP/dir$n" "$TMP/reports$n"
  cp "$XML/$cap" "$TMP/dir$n/$host.xml"
  record "$host" "$XML/$cap"
  "$TOOL" --smi-xml "$XML/$cap" --json >"$TMP/file.json" || true
  cp "$TMP/file.json" "$TMP/reports$n/$host.json"
  "$TOOL" --smi-xml "$TMP/dir$n" --json >"$TMP/dir.json" || true
  "$TOOL" --ssh-command "$FAKE_SSH" --host-timeout 5s --host "$host" --json >"$TMP/host.json" || true
  "$TOOL" --reports "$TMP/reports$n" --json >"$TMP/reports.json" || true
  ids "$TMP/file.json" >"$TMP/a"
  [[ -s "$TMP/a" ]] || fail "$cap: no findings read from --smi-xml FILE"
  ids "$TMP/dir.json" "$host" >"$TMP/b"
  ids "$TMP/host.json" "$host" >"$TMP/c"
  # A saved report names its host by the capture's own hostname when it has one.
  rhost=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"][0]["host"])' "$TMP/reports.json")
  ids "$TMP/reports.json" "$rhost" >"$TMP/d"
  diff -u "$TMP/a" "$TMP/b" || fail "$cap: --smi-xml DIR differs from --smi-xml FILE"
  diff -u "$TMP/a" "$TMP/c" || fail "$cap: --host differs from --smi-xml FILE"
  diff -u "$TMP/a" "$TMP/d" || fail "$cap: --reports DIR differs from --smi-xml FILE"
  # gpus=N/- in every mode: a capture has no PCI bus reading.
  "$TOOL" --smi-xml "$XML/$cap" --oneline >"$TMP/one" || true
  "$TOOL" --smi-xml "$TMP/dir$n" >"$TMP/dirtext" || true
  grep -q 'gpus=[0-9?]*/- ' "$TMP/one" || fail "$cap: --oneline: $(cat "$TMP/one")"
  grep -q 'gpus=[0-9?]*/- ' "$TMP/dirtext" || fail "$cap: --smi-xml DIR: $(cat "$TMP/dirtext")"
done

# --expect-gpus on every path: a 1-GPU capture against 8 expected.
one="$XML/netdata-rtx-4090-535.86.05.xml"
set +e
"$TOOL" --smi-xml "$one" --expect-gpus 8 --json >"$TMP/file.json"
rc_file=$?
"$TOOL" --ssh-command "$FAKE_SSH" --host-timeout 5s --host h1 --expect-gpus 8 --json >"$TMP/host.json"
rc_host=$?
set -e
[[ $rc_file == 2 && $rc_host == 2 ]] || fail "--expect-gpus 8 exits $rc_file (file), $rc_host (host)"
ids "$TMP/file.json" >"$TMP/a"
ids "$TMP/host.json" h1 >"$TMP/c"
grep -qx 'critical gpu.count_mismatch' "$TMP/a" || fail "file: no count mismatch: $(cat "$TMP/a")"
grep -qx 'critical gpu.count_mismatch' "$TMP/c" || fail "--host: no count mismatch: $(cat "$TMP/c")"
echo ok
