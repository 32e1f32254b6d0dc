# --smi-xml: a capture is judged as a capture. Its GPU count is the
# capture's own (trimmed: capture.incomplete; --expect-gpus against its
# GPUs), its processes are PIDs of that node (never this machine's PID
# namespace), the JSON says when and from which file, NVML of this machine
# is not claimed, and an unreadable capture gives only its own message.
source "$(dirname "$0")/common.sh"

XML="$GT_SOURCE_DIR/tests/fixtures/real/nvidia-smi-xml"

cap() {  # ARGS...: the tool on a capture; stdout, stderr, exit code
  set +e
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

# make_capture SRC DEST N ATTACHED: SRC's first <gpu> repeated N times (each
# its own bus id and UUID), <attached_gpus> set to ATTACHED.
make_capture() {
  "$PYTHON" - "$@" <<'PY'
import re, sys
src, dest, n, attached = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(src).read()
m = re.search(r"[ \t]*<gpu id=.*?</gpu>\n", text, re.S)
gpus = []
for i in range(n):
    bus = "00000000:%02X:00.0" % (0x19 + i)
    g = re.sub(r'<gpu id="[^"]*">', '<gpu id="%s">' % bus, m.group(0), count=1)
    g = re.sub(r"<pci_bus_id>[^<]*</pci_bus_id>", "<pci_bus_id>%s</pci_bus_id>" % bus, g)
    g = re.sub(r"<uuid>GPU-[0-9a-f]{8}", "<uuid>GPU-%08x" % i, g)
    g = re.sub(r"<minor_number>\d+</minor_number>", "<minor_number>%d</minor_number>" % i, g)
    gpus.append(g)
out = text[: m.start()] + "".join(gpus) + text[m.end():]
out = re.sub(r"<attached_gpus>\d+</attached_gpus>", "<attached_gpus>%s</attached_gpus>" % attached, out)
open(dest, "w").write(out)
PY
}

ids() { "$PYTHON" -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' "$TMP/out"; }

# (1) A capture trimmed to 1 of its 16 GPUs: incomplete, whatever --expect-gpus says.
make_capture "$XML/telegraf-a10g-515.105.01.xml" "$TMP/trimmed.xml" 1 16
for expect in "" "--expect-gpus 16" "--expect-gpus 8"; do
  # shellcheck disable=SC2086
  cap --smi-xml "$TMP/trimmed.xml" --json $expect
  expect_rc 1
  json_check 'd["gpu_count"] == 16 and len(d["gpus"]) == 1' "trimmed: 16 attached, 1 described ($expect)"
  json_check '[f["id"] for f in d["findings"] if f["id"].startswith("gpu.") or f["id"].startswith("capture.")] == ["capture.incomplete"]' \
    "trimmed: capture.incomplete alone ($expect): $(ids)"
done
cap --smi-xml "$TMP/trimmed.xml"
expect_rc 1
expect_out_contains "The capture names 16 attached GPUs but describes 1"

# An 8-GPU capture against --expect-gpus: its own GPUs are counted, the
# PCI bus of this machine is not.
make_capture "$XML/telegraf-a10g-515.105.01.xml" "$TMP/eight.xml" 8 8
cap --smi-xml "$TMP/eight.xml" --json --expect-gpus 8
[[ "$RC" == 0 || "$RC" == 1 ]] || fail "8 of 8: exit $RC: $(cat "$TMP/err")"
json_check 'len(d["gpus"]) == 8 and d["gpu_count"] == 8'
json_check '"gpu.all_present" in [f["id"] for f in d["findings"]] and "gpu.count_mismatch" not in [f["id"] for f in d["findings"]]' "8 of 8 present: $(ids)"
json_check '[f["evidence"] for f in d["findings"] if f["id"] == "gpu.all_present"][0].startswith("the capture: 8 attached GPUs, all described")' "no PCI bus count for a capture"
cap --smi-xml "$TMP/eight.xml" --json --expect-gpus 9
expect_rc 2
json_check '"gpu.count_mismatch" in [f["id"] for f in d["findings"]]' "8 of 9: count mismatch"

# (2) Processes of a capture are that node's PIDs: no advice about this
# machine's PID namespace, in any capture, in any output.
for f in "$XML"/*.xml; do
  for mode in "" --json; do
    # shellcheck disable=SC2086
    cap --smi-xml "$f" $mode
    if grep -qiE "PID namespace|nsenter|--pid=host" "$TMP/out" "$TMP/err"; then
      fail "$(basename "$f") $mode: advice about this machine's PID namespace: $(grep -iE "PID namespace|nsenter|--pid=host" "$TMP/out" "$TMP/err" | head -3)"
    fi
  done
done
# The Windows capture lists processes with an empty <process_name>.
cap --smi-xml "$XML/netdata-rtx-2080-win-516.59-26procs.xml" --json
json_check 'all(p["visibility_note"] == "PID %d on the captured node; /proc of that node was not read" % p["pid"] for p in d["gpus"][0]["processes"])' "visibility_note"
json_check 'all(p["visible"] is False for p in d["gpus"][0]["processes"])'

# (3) JSON: this machine's NVML is not claimed; when and from which file.
cap --smi-xml "$XML/pai-tesla-k80-x4-azure-430.26-ecc-retired.xml" --json
json_check 'd["nvml"]["loaded"] is None and d["nvml"]["initialized"] is None' "nvml null for a capture"
json_check 'd["captured_at"] == "Tue Dec  3 05:27:00 2019" and d["captured_at_unix_s"] == 1575350820'
json_check 'd["capture_file"].endswith("/pai-tesla-k80-x4-azure-430.26-ecc-retired.xml")'
cap --smi-xml - --json <"$XML/telegraf-a10g-515.105.01.xml"
json_check 'd["capture_file"] == "(stdin)" and d["captured_at"] == "Mon Apr 24 16:11:51 2023"' "stdin"

# (5) The table says it is a capture, with its timestamp and file.
cap --smi-xml "$XML/telegraf-a10g-515.105.01.xml"
# (wrapped to the terminal: read as one text)
tr -s ' \n' '  ' <"$TMP/out" | grep -q " capture .*/telegraf-a10g-515.105.01.xml, taken Mon Apr 24 16:11:51 2023 " ||
  fail "table names the capture: $(head -5 "$TMP/out")"
expect_out_lacks "(NVML)"

# (4) An unreadable capture: its own message once, nothing about this
# machine's driver; nothing to judge (UNKNOWN, exit 3).
printf 'garbage \x01\x02 not a capture\n' >"$TMP/garbage.xml"
head -c 3000 "$XML/netdata-rtx-4090-535.86.05.xml" >"$TMP/truncated.xml"
for f in garbage truncated; do
  for mode in "" --json --oneline; do
    # shellcheck disable=SC2086
    cap --smi-xml "$TMP/$f.xml" $mode
    expect_rc 3
    if grep -qiE "no NVIDIA driver|NVML library|cannot be loaded|PCI bus|kernel module" "$TMP/out" "$TMP/err"; then
      fail "$f $mode: talks about this machine: $(cat "$TMP/out" "$TMP/err" | head -5)"
    fi
    [[ $(grep -c "$f.xml" "$TMP/err") == 1 ]] || fail "$f $mode: one message on stderr: $(cat "$TMP/err")"
  done
  cap --smi-xml "$TMP/$f.xml" --json
  json_check 'd["verdict"] == "UNKNOWN" and d["nvml"]["loaded"] is None and d["gpus"] == []'
  json_check 'd["nvml"]["error"].find("'"$f"'.xml") >= 0' "the capture's own error in nvml.error"
done
grep -q "not nvidia-smi XML" "$TMP/err" || fail "truncated: the XML error: $(cat "$TMP/err")"
