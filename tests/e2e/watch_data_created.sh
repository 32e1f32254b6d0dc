# gpu-triage watch --data DIR follows DIR by path: started before the job
# makes its folder, it says "created" when it appears and verifies its new
# files (a damaged one raised); the job making it anew (rm -rf; mkdir) is
# said "recreated" and its new files are verified too. (Before: "data
# folder cannot be read" once, and nothing after.)
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"
WRITER="$GT_SOURCE_DIR/tests/e2e/lib/data_writer.py"
D="$TMP/job/out"

start_watch healthy-h100x8 --data "$D" --interval 1s --sample 200ms --no-kernel-log
wait_out "data folder does not exist yet: waiting for it" 10
"$PYTHON" "$WRITER" "$D" write 0 3 0.2 1
wait_out " data-created info $D: data folder created" 5
wait_out "bad-file critical $D/sample_00001.gz" 10
rm -rf "$D"
mkdir -p "$D"
"$PYTHON" "$WRITER" "$D" write 0 2 0.2 0
wait_out "data folder recreated" 5
wait_out "bad-file critical $D/sample_00000.gz" 10
stop_watch
expect_rc 0
expect_out_lacks "cannot be read"
[[ $(count_out "bad-file") == 2 ]] || fail "each bad file not said once:
$(cat "$TMP/out")"
