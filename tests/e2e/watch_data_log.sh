# gpu-triage watch --data DIR in log mode, while a test writer fills DIR as
# a resumed job would: each damaged new file is one line within seconds of
# being closed (settled 3 s, then verified whole), a stall (no new file for
# five usual intervals, 10 s at least) is one line, and the folder going
# away is raised at once, never a crash.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"
WRITER="$GT_SOURCE_DIR/tests/e2e/lib/data_writer.py"
D="$TMP/job/out"
"$PYTHON" "$WRITER" "$D" baseline 30

start_watch healthy-h100x8 --data "$D" --expect 100 --interval 1s --sample 200ms --no-kernel-log
wait_out " started " 10
"$PYTHON" "$WRITER" "$D" write 30 10 0.5 34,37
wait_out "sample_00037.gz" 10
wait_out " stall " 20
mv "$D" "$D.moved"
wait_out " data-gone " 5
stop_watch
expect_rc 0

# Each damaged file once, with what is wrong, soon after it was closed.
for i in 34 37; do
  [[ $(count_out "bad-file critical $D/sample_000$i.gz") == 1 ]] || fail "sample $i not said once:
$(cat "$TMP/out")"
  closed=$(awk -v i="$i" '$1 == i {print int($2)}' "$TMP/job/written.log")
  said=$(date -d "$(grep -F "sample_000$i.gz" "$TMP/out" | cut -d' ' -f1)" +%s)
  (( said - closed <= 6 )) || fail "sample $i said $((said - closed)) s after it was closed"
done
expect_out_contains "sample_00034.gz: new file is bad: truncated"
[[ $(count_out "bad-file") == 2 ]] || fail "an intact file called bad: $(cat "$TMP/out")"
[[ $(count_out " stall ") == 1 ]] || fail "stall not said once"
expect_out_contains "stall warning $D: stall: no new file for"
expect_out_contains "data-gone critical $D: data folder is gone or is another filesystem now"
