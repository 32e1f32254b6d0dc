# Quick mode's crash window is anchored on the samples, never on a newer
# non-sample file (issue 31 item 2; the regression of issue 14's window). A
# corpus written at 1.09 samples/s that stopped an hour ago, two files with a
# flipped byte inside a record in its last minutes: a `progress.json`
# written now, or one good sample copied back in now, must not move the
# window off the damaged files, and a non-sample file is not a sample; with
# `gpu-triage --data` the crash time from the incident timeline anchors a
# window too.
source "$(dirname "$0")/common.sh"
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "SKIP: python3-torch not installed"; exit 0; }
D="$TMP/hidden"
/usr/bin/python3 "$GT_SOURCE_DIR/bench/tools/make-torch-corpus.py" "$D" --layout specforge \
  --count 300 --hidden 64 --seq 16:16 >/dev/null
cp "$D/rows_0-2000/data_10.ckpt" "$TMP/data_10.good"
# flip_inside_record(PATH), for the two corpora below: one byte flipped in
# the middle of the largest member's data (the zip's structure intact, its
# CRC32 wrong), as a bad sector or a torn write leaves a record.
cat >"$TMP/flip.py" <<'PY'
import zipfile
def flip_inside_record(p):
    with zipfile.ZipFile(p) as z:
        info = max(z.infolist(), key=lambda e: e.compress_size)
    with open(p, "r+b") as f:
        f.seek(info.header_offset + 26)
        name_len, extra_len = (int.from_bytes(f.read(2), "little") for _ in range(2))
        at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
        f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ 0x5A]))
PY
export PYTHONPATH="$TMP${PYTHONPATH:+:$PYTHONPATH}"

# Written at 1.09 samples/s, the last one an hour ago; a flipped byte in
# the middle of the largest record of data_290 and data_296 (the CRC32 in
# the central directory no longer matches), mtimes kept.
/usr/bin/python3 - "$D/rows_0-2000" <<'PY'
import os, sys, time
from flip import flip_inside_record
d = sys.argv[1]
end = time.time() - 3600
for i in range(300):
    t = end - (299 - i) / 1.09
    p = os.path.join(d, f"data_{i}.ckpt")
    if i in (290, 296):
        flip_inside_record(p)
    os.utime(p, (t, t))
PY

check_both_found() {  # check_both_found WHAT
  set +e
  "$TOOL" data "$D" --expect 300 --json >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc 1
  json_check 'sorted((b["index"], b["problem"]) for b in d["bad"]) == [(290, "checksum"), (296, "checksum")]' \
    "$1: the two damaged files in the last minutes are found"
  json_check 'd["summary"]["samples"] == 300' "$1: 300 samples"
}

check_both_found "the corpus alone"
echo '{}' >"$D/progress.json"
check_both_found "a newer progress.json"
json_check 'd["summary"]["files"] == 301 and d["summary"]["ok"] + d["summary"]["ok_other"] == 299 and d["summary"]["ok_other"] >= 1' "progress.json is a file, not a sample"
set +e
"$TOOL" data "$D" --expect 300 >"$TMP/out" 2>"$TMP/err"
set -e
expect_out_contains "300 samples"
expect_out_lacks "every CRC32 of the 1 files"
# One good sample copied back in now (a restore of a single file).
cp "$TMP/data_10.good" "$D/rows_0-2000/data_10.ckpt"
check_both_found "a newer copy of one good sample"

# `gpu-triage --data DIR` on a node whose previous boot ended abruptly: the
# crash time (its last journal entry, 2025-12-31T23:55:00Z in the story's
# incident fixture) anchors a window too. A slow job (one sample each 10
# min, no pause longer than the window) that wrote through the crash and
# the reboot: the sample damaged a minute before the crash is read whole,
# though the newest sample is hours later.
cp -r "$GT_SOURCE_DIR/tests/scenarios/incident-story" "$TMP/incident-story"
C="$TMP/slow/rows_0-2000"
mkdir -p "$C"
"$PYTHON" - "$C" "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge/rows_0-4/data_0.ckpt" <<'PY'
import os, shutil, sys
from flip import flip_inside_record
d, src = sys.argv[1], sys.argv[2]
crash = 1767225600 - 300
for i in range(24):
    p = os.path.join(d, f"data_{i}.ckpt")
    shutil.copy(src, p)
    t = crash - 60 - 600 * (11 - i)  # data_11 a minute before the crash
    if i == 11:
        flip_inside_record(p)
    os.utime(p, (t, t))
PY
run "$TMP/incident-story" --data "$TMP/slow" --expect 24 --sample 0 --json
json_check 'd["incident"]["previous_boot"]["ending"] == "abrupt"'
json_check '[b["problem"] for b in d["data"]["bad"] if b["path"].endswith("/data_11.ckpt")] == ["checksum"]' \
  "the sample written a minute before the crash is CRC-checked"
