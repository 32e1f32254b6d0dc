# A sample's path that is no regular file of its own (a directory, a
# dangling link, a link to another sample, a FIFO) is bad, never "not
# started": SpecForge skips a path that exists. It is moved itself (never its
# target), a FIFO is never read (no hang). "intact" counts samples only, and
# while a writer runs the rerun waits for it.
source "$(dirname "$0")/common.sh"
D="$TMP/c7"
cp -r "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge" "$D"; chmod -R u+w "$D"
mkdir "$D/rows_4-8/data_6.ckpt"
ln -s /nonexistent "$D/rows_4-8/data_7.ckpt"
ln -s ../rows_0-4/data_0.ckpt "$D/rows_4-8/data_8.ckpt"
mkdir -p "$D/rows_8-12"; mkfifo "$D/rows_8-12/data_9.ckpt"
set +e
timeout 60 "$TOOL" data "$D" --expect 10 --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 1
json_check '[b["problem"] for b in d["bad"]] == ["not-regular"] * 4'
json_check 'd["resume"] == [6, 7, 8, 9] and d["missing"] == []'
json_check '"dangling link" in d["bad"][1]["message"] and "link to ../rows_0-4/data_0.ckpt" in d["bad"][2]["message"]'
json_check 'd["summary"]["ok"] == 6'
set +e
timeout 60 "$TOOL" data "$D" --expect 10 --move-bad-to "$TMP/bad" --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
expect_rc 1
[[ -L "$TMP/bad/rows_4-8/data_8.ckpt" && -L "$TMP/bad/rows_4-8/data_7.ckpt" ]] || fail "links not moved"
[[ -d "$TMP/bad/rows_4-8/data_6.ckpt" && -p "$TMP/bad/rows_8-12/data_9.ckpt" ]] || fail "dir/FIFO not moved"
[[ -f "$D/rows_0-4/data_0.ckpt" && ! -L "$D/rows_0-4/data_0.ckpt" ]] || fail "a link's target moved"
# A progress.json is a file, not an intact sample.
echo '{}' >"$D/progress.json"
head -c 100 "$D/rows_0-4/data_1.ckpt" >"$TMP/t" && cat "$TMP/t" >"$D/rows_0-4/data_1.ckpt"
set +e
"$TOOL" data "$D" --expect 6 >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
grep -q "5 samples intact, 1 other file intact, 1 bad" "$TMP/out" || fail "counts: $(head -1 "$TMP/out")"
set +e
"$TOOL" data "$D" --expect 6 --json >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
json_check 'd["summary"]["ok"] == 5 and d["summary"]["ok_other"] == 1'
# While a process writes under DIR the rerun step waits for it.
head -c 100 "$D/rows_4-8/data_5.ckpt" >"$TMP/t" && cat "$TMP/t" >"$D/rows_4-8/data_5.ckpt"
exec 3>>"$D/rows_4-8/data_5.ckpt"
set +e
"$TOOL" data "$D" --expect 8 >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
exec 3>&-
grep -q "after the writer stops, run gpu-triage data again" "$TMP/out" || fail "no wait: $(cat "$TMP/out")"
! grep -q "Then rerun the same" "$TMP/out" || fail "rerun given as if ready: $(cat "$TMP/out")"
# Counted nouns agree with their count.
cp -r "$GT_SOURCE_DIR/tests/fixtures/real/torch/specforge" "$TMP/p"
set +e
"$TOOL" data "$TMP/p" --expect 7 >"$TMP/out" 2>"$TMP/err"; RC=$?
set -e
grep -q "(1 sample above the highest index)" "$TMP/out" || fail "plural: $(cat "$TMP/out")"
