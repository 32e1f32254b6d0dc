# Risk-based verification (issue 14): a crash puts the files written last at
# risk, so quick mode also checks every CRC32 of the files written within
# --recent (15 min) of the newest one. On a real torch.save corpus, a zeroed
# 4 KiB block in the file written last is found in quick mode, a flipped bit
# in an old file only with --deep, and quick mode says what it left out.
source "$(dirname "$0")/common.sh"
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "SKIP: python3-torch not installed"; exit 0; }
D="$TMP/hidden"
/usr/bin/python3 "$GT_SOURCE_DIR/bench/tools/make-torch-corpus.py" "$D" --layout specforge \
  --count 20 --hidden 256 --seq 64:64 >/dev/null
# Written one a minute; data_19 last. data_3 was written 16 min before it,
# outside the window (an isolated older sample would end a stretch of
# writing of its own, and be checked: tests/e2e/data_window_anchor.sh).
/usr/bin/python3 - "$D" <<'PY'
import os, sys
d = os.path.join(sys.argv[1], "rows_0-2000")
base = 1_700_000_000
for i in range(20):
    t = base + 60 * i
    os.utime(os.path.join(d, f"data_{i}.ckpt"), (t, t))
PY
damage() {  # damage FILE: what, at the middle of the file (4 KiB aligned), keeping the mtime
  local f="$1" size at t
  size=$(stat -c %s "$f"); at=$(( size / 2 / 4096 * 4096 )); t=$(stat -c %Y "$f")
  if [[ "$2" == zero ]]; then
    dd if=/dev/zero of="$f" bs=4096 seek=$(( at / 4096 )) count=1 conv=notrunc status=none
  else
    printf '\x5a' | dd of="$f" bs=1 seek=$(( at + 100 )) conv=notrunc status=none
  fi
  touch -d "@$t" "$f"
}
damage "$D/rows_0-2000/data_19.ckpt" zero
damage "$D/rows_0-2000/data_3.ckpt" flip

# Quick (default): data_19 is recent and deep-checked; data_3 is not.
run_data "$D" --expect 20 --json
expect_rc 1
json_check '[(b["index"], b["problem"] in ("zero-filled", "checksum")) for b in d["bad"]] == [(19, True)]' "quick: the recent file only"
json_check 'd["checked"]["recent_window_s"] == 900 and d["checked"]["recent_files"] == 16' "16 files within 15 min of the newest"
json_check 'd["checked"]["crc_checked"] == 16 and d["checked"]["not_crc_checked"] == 4'
run_data "$D" --expect 20
expect_out_contains "every CRC32 of the 16 files written within 15 min before the newest sample"
expect_out_contains "not checked: CRC32 of the other 4 files"
expect_out_contains "--deep checks every byte"
# Acting in quick mode: said up front, on stderr, before anything else.
run_data "$D" --expect 20 --resume-list "$TMP/redo.txt"
head -1 "$TMP/err" | grep -q "^gpu-triage data: quick mode checks .* Add --deep" || fail "no up-front note: $(cat "$TMP/err")"
[[ "$(cat "$TMP/redo.txt")" == 19 ]] || fail "resume list: $(cat "$TMP/redo.txt")"
# --recent 0 turns the deep check of recent files off.
run_data "$D" --expect 20 --recent 0 --json
json_check 'd["bad"] == [] and d["checked"]["crc_checked"] == 0' "--recent 0: structure only"

# Deep: both.
run_data "$D" --expect 20 --deep --json
expect_rc 1
json_check 'sorted(b["index"] for b in d["bad"]) == [3, 19]' "deep: both damaged files"
json_check '[b["problem"] for b in d["bad"] if b["index"] == 3] == ["checksum"]'
json_check 'd["checked"]["not_crc_checked"] == 0 and d["checked"]["recent_files"] is None'

# The window's guess (docs/data.md): with the folders' mtimes back at
# data_3's, the files within 15 min of it (data_0 to data_18) are read whole
# on their one open, before the window is known: data_3's flipped bit is
# found in quick mode too, and the text says what more was read.
touch -d "@$((1700000000 + 180))" "$D/rows_0-2000" "$D"
run_data "$D" --expect 20 --json
expect_rc 1
json_check 'sorted(b["index"] for b in d["bad"]) == [3, 19]' "quick, the guess at data_3: both"
json_check 'd["checked"]["crc_checked"] == 20 and d["checked"]["recent_files"] == 16'
run_data "$D" --expect 20
expect_out_contains "every CRC32 of the 16 files written within 15 min before the newest sample"
expect_out_contains "; and of 4 more files, read whole on the way"
expect_out_lacks "not checked: CRC32"
