# gpu-triage watch follows --kernel-log by name, as tail -F does: after
# logrotate's rename (kern.log -> kern.log.1, then a new kern.log) the new
# file is read from its start, an Xid written there is one event line, and
# the rotation is said once. (Before: it kept the old inode; every later
# Xid was missed.)
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

LOG="$TMP/kern.log"
echo "[  100.000000] NVRM: Xid (PCI:0000:2a:00): 13, pid=4242, name=python3, Graphics Exception" >"$LOG"
start_watch after-crash --kernel-log "$LOG" --interval 1s --sample 200ms
wait_out " started " 10
mv "$LOG" "$LOG.1"
echo "[  200.000000] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." >"$LOG"
wait_out "gpu.xid.79" 5
wait_out "kern.log rotated, reopened" 5
# Truncated in place (copytruncate) then written: read again from its start.
: >"$LOG"
sleep 1.5
echo "[  300.000000] NVRM: Xid (PCI:0000:2a:00): 48, pid=4242, name=python3, DBE" >>"$LOG"
wait_out "gpu.xid.48" 5
stop_watch
expect_rc 0
[[ $(count_out "rotated, reopened") == 1 ]] || fail "the rotation said more than once:
$(cat "$TMP/out")"
expect_out_contains "note info: $LOG rotated, reopened"
expect_out_contains "note info: $LOG truncated, read again from its start"
[[ $(count_out "event critical gpu.xid.79") == 1 ]] || fail "the Xid in the new file not said once:
$(cat "$TMP/out")"
