# Data under a live writer (issue 31 item 2): a file a running process has
# open for writing is "being written", neither bad nor intact and not in
# the resume set; "writing stopped" and "the writer died" are not said while
# it runs; --move-bad-to moves nothing at all while it runs; a zero-filled
# tail says how many bytes are zero; after the move the advice says the
# files were moved (no "First move ...").
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge"
D="$TMP/hidden"
cp -r "$REAL" "$D"
chmod -R u+w "$D"
S="$D/rows_0-4"
# A crash's damage: the last 1,782 bytes of data_1 read back as zeros (its
# central directory lost), data_2 cut short.
size=$(stat -c %s "$S/data_1.ckpt")
dd if=/dev/zero of="$S/data_1.ckpt" bs=1 seek=$((size - 1782)) count=1782 conv=notrunc status=none
head -c 2000 "$REAL/rows_0-4/data_2.ckpt" >"$S/data_2.ckpt"
find "$D" -type f -exec touch -d '2 hours ago' {} +
# The job still runs: python has data_5 half written and open, bash holds
# its temporary file open (exec 3>).
head -c 1500 "$REAL/rows_4-8/data_5.ckpt" >"$D/rows_4-8/data_5.ckpt"
"$PYTHON" -c 'import sys,time; f=open(sys.argv[1],"ab"); print("ready", flush=True); time.sleep(120)' \
  "$D/rows_4-8/data_5.ckpt" >"$TMP/writer" &
WRITER=$!
exec 3>"$D/rows_4-8/.tmp_data_6.ckpt"
trap 'kill $WRITER 2>/dev/null || true; exec 3>&-; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do grep -q ready "$TMP/writer" && break; sleep 0.1; done
grep -q ready "$TMP/writer" || fail "the writer did not start"

run_data "$D" --expect 6 --json
expect_rc 1
json_check '[(w["path"].endswith("/rows_4-8/data_5.ckpt"), "pid '"$WRITER"'" in w["writer"]) for w in d["being_written"] if "data_5" in w["path"]] == [(True, True)]' \
  "data_5 is being written by the python writer"
json_check 'any(w["path"].endswith("/.tmp_data_6.ckpt") and "pid '"$$"'" in w["writer"] for w in d["being_written"])' \
  "the temp file bash holds open is being written"
json_check 'sorted(b["index"] for b in d["bad"]) == [1, 2]' "only the damaged files are bad"
json_check 'd["resume"] == [1, 2]' "the file being written is not in the resume set"
json_check 'd["stale"] == [] and d["summary"]["ok"] == 3' "neither stale nor intact"
json_check '[b["message"] for b in d["bad"] if b["index"] == 1] == ["last 1782 bytes are zero (from byte '"$((size - 1782))"'): no end-of-central-directory"]' \
  "the zero-filled tail's real length"
run_data "$D" --expect 6
expect_out_contains "2 being written"
expect_out_lacks "writing stopped"
expect_out_lacks "writer died"
# A temp file nobody holds, while the writer runs: not "the writer died".
: >"$D/rows_0-4/.tmp_data_9.ckpt"
run_data "$D" --expect 6
expect_out_lacks "writer died"
expect_out_contains "Stale temporary files (1)"

# --move-bad-to under the writer: nothing moves, the refusal names it, exit 2.
run_data "$D" --expect 6 --deep --move-bad-to "$TMP/bad"
expect_rc 2
[[ -f "$S/data_1.ckpt" && -f "$S/data_2.ckpt" && ! -e "$TMP/bad/rows_0-4" ]] ||
  fail "files moved under a live writer: $(ls -R "$TMP/bad" 2>&1)"
expect_out_contains "--move-bad-to: nothing moved: pid"
expect_out_lacks "moved $D"
expect_out_lacks "gpu-triage data $D --expect 6 --deep --move-bad-to"

# The writer stops (data_5 stays cut short) and the temp file is closed.
kill "$WRITER"
wait "$WRITER" 2>/dev/null || true
exec 3>&-
rm "$D/rows_4-8/.tmp_data_6.ckpt" "$D/rows_0-4/.tmp_data_9.ckpt"
run_data "$D" --expect 6 --deep --move-bad-to "$TMP/bad"
expect_rc 1
[[ -f "$TMP/bad/rows_0-4/data_1.ckpt" && -f "$TMP/bad/rows_4-8/data_5.ckpt" && ! -e "$S/data_2.ckpt" ]] ||
  fail "the bad files were not moved: $(cat "$TMP/out")"
expect_out_contains "3 bad (3 moved out of DIR)"
expect_out_contains "The 3 bad or changed files were moved out of DIR to $TMP/bad."
expect_out_lacks "First move the bad"
