# gpu-triage data on a damaged copy of a real SpecForge corpus (issue 5):
# quick mode finds every empty, truncated and zero-filled file, deep mode
# also the checksum failures, with the right indices, and the resume list is
# exactly the missing plus the bad indices.
source "$(dirname "$0")/common.sh"
REAL="$GT_SOURCE_DIR/tests/fixtures/real/torch"
D="$TMP/corpus"
cp -r "$REAL/specforge" "$D"
chmod -R u+w "$D"
: > "$D/rows_0-4/data_1.ckpt"                                     # empty
head -c 3000 "$REAL/specforge/rows_0-4/data_3.ckpt" > "$D/rows_0-4/data_3.ckpt"  # truncated
head -c "$(stat -c %s "$REAL/specforge/rows_4-8/data_4.ckpt")" /dev/zero > "$D/rows_4-8/data_4.ckpt"  # zero-filled
printf '\x01' | dd of="$D/rows_0-4/data_0.ckpt" bs=1 seek=1100 conv=notrunc status=none  # bit damage
rm "$D/rows_0-4/data_2.ckpt"                                       # missing
cp "$D/rows_4-8/data_5.ckpt" "$D/rows_4-8/.tmpx81kq"               # stale temp
mkdir -p "$D/rows_8-12"; cp "$D/rows_4-8/data_5.ckpt" "$D/rows_8-12/data_9.ckpt"
before=$(cd "$D" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)

# Quick with --recent 0 (structure only): empty, truncated, zero-filled; not
# the flipped bit (torch.load would not see it either). By default every file
# of this fresh copy is recent and gets the CRC check (data_recent_window.sh).
run_data "$D" --expect 12 --recent 0 --json
expect_rc 1
json_check 'd["layout"] == "specforge" and d["mode"] == "quick"'
json_check 'sorted((b["index"], b["problem"]) for b in d["bad"]) == [(1, "empty"), (3, "truncated"), (4, "zero-filled")]' "quick: exact codes and indices"
json_check 'd["missing"] == [2, 6, 7, 8, 10, 11]' "missing indices"
json_check 'd["resume"] == [1, 2, 3, 4, 6, 7, 8]' "resume = gaps + bad"
json_check 'd["not_started"] == {"first": 10, "last": 11, "count": 2}' "not started, above the highest index"
json_check 'd["stale"] == ["'"$D"'/rows_4-8/.tmpx81kq"]' "stale temp reported apart"
json_check 'd["summary"]["files"] == 7 and d["summary"]["bad"] == 3 and d["summary"]["stale"] == 1'
json_check '"truncated at byte 3000" in [b for b in d["bad"] if b["index"] == 3][0]["message"]'

# Deep: also the checksum failure of sample 0, with the record and both CRCs.
run_data "$D" --expect 12 --deep --json --resume-list "$TMP/resume.txt"
expect_rc 1
json_check 'sorted((b["index"], b["problem"]) for b in d["bad"]) == [(0, "checksum"), (1, "empty"), (3, "truncated"), (4, "zero-filled")]' "deep: exact codes and indices"
json_check '[b for b in d["bad"] if b["index"] == 0][0]["message"].startswith("record data_0/data/2: CRC32 want 0xE25228DD, got 0x")'
[[ "$(cat "$TMP/resume.txt")" == "$(printf '0\n1\n2\n3\n4\n6\n7\n8')" ]] || fail "resume list: $(cat "$TMP/resume.txt")"

# Text report: verdict first, then the resume set.
run_data "$D" --expect 12 --deep
expect_rc 1
head -1 "$TMP/out" | grep -q "^WARNING data: 7 files, 2 intact, 4 bad, 6 missing (4 gaps below the highest index, 2 not started), 1 stale" || fail "summary: $(head -1 "$TMP/out")"
expect_out_contains "resume: 8 samples to redo: 0-4, 6-8"
expect_out_contains "not started: 10-11 (2 samples above the highest index)"
expect_out_contains "SpecForge (scripts/prepare_hidden_states.py) skips every index whose data_<idx>.ckpt"
expect_out_contains "A gap may be expected: SpecForge does not save a sample whose hidden states hold NaN"
expect_out_contains "checksum      $D/rows_0-4/data_0.ckpt: record data_0/data/2: CRC32 want 0xE25228DD"

# -0: the bad paths, NUL-separated (quick mode: this fresh copy is recent,
# so the CRC failure of sample 0 is found too).
run_data "$D" -0
[[ "$(tr '\0' '\n' < "$TMP/out")" == "$(printf '%s\n' "$D/rows_0-4/data_0.ckpt" "$D/rows_0-4/data_1.ckpt" "$D/rows_0-4/data_3.ckpt" "$D/rows_4-8/data_4.ckpt")" ]] || fail "-0 output"

# Nothing in DIR was modified by any of this.
after=$(cd "$D" && find . -type f -printf '%p %s %T@\n' | sort | sha256sum)
[[ "$before" == "$after" ]] || fail "DIR changed without --move-bad-to"
