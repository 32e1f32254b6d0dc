# gpu-triage watch follows the kernel log (here a file the test appends to,
# as the kernel appends to /dev/kmsg): a new Xid is one event line with its
# GPU and server, a storm of it stays one line, a record split across two
# writes is read whole, and what the log held before watch started is
# judged but not announced. A driver without NVML event support: events
# come from the kernel log only, said once; an unreadable log, said once.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

# after-crash, with every GPU refusing event registration.
mkdir -p "$TMP/no-events"
ln -s "$GT_SOURCE_DIR/tests/scenarios/after-crash/root" "$TMP/no-events/root"
"$PYTHON" - "$GT_SOURCE_DIR/tests/scenarios/after-crash/scenario.json" \
  "$TMP/no-events/scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for d in s["devices"]:
    d.setdefault("errors", {})["nvmlDeviceRegisterEvents"] = "NOT_SUPPORTED"
json.dump(s, open(sys.argv[2], "w"))
PY
LOG="$TMP/kern.log"
echo "[  100.000000] NVRM: Xid (PCI:0000:2a:00): 13, pid=4242, name=python3, Graphics Exception" >"$LOG"

start_watch "$TMP/no-events" --kernel-log "$LOG" --interval 1s --sample 200ms
wait_out " started " 10
wait_out "events: kernel log ($LOG) only (NVML events not supported here (nvmlDeviceRegisterEvents: NVML_ERROR_NOT_SUPPORTED))" 10
# A record in two writes, then a storm of the same Xid.
printf '[  200.000000] NVRM: Xid (PCI:0000:9a:00): 79, pid=\x27<unknown>\x27, name=<unknown>, GPU has fall' >>"$LOG"
sleep 1.5
printf 'en off the bus.\n' >>"$LOG"
for i in $(seq 40); do
  echo "[  200.$((100 + i))] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." >>"$LOG"
done
wait_out "gpu.xid.79" 5
sleep 2.5
stop_watch
expect_rc 0
[[ $(count_out "event critical gpu.xid.79 GPU 4 0000:9a:00.0 [SGLang pid-3141 (TP 8, GPUs 0-7)]: Xid 79") == 1 ]] ||
  fail "Xid 79 not said once with its GPU and server:
$(cat "$TMP/out")"
expect_out_contains "GPU has fallen off the bus. (kernel log)"
[[ $(count_out "gpu.xid.79") == 1 ]] || fail "the storm was said more than once"
# The old Xid 13 was judged (the verdict), not announced.
[[ $(count_out "gpu.xid.13") == 0 ]] || fail "a line from before watch started was announced"
[[ $(count_out "events:") == 1 ]] || fail "the event sources said more than once"

# An unreadable kernel log: said once (and judged: kernel_log.unreadable).
start_watch "$TMP/no-events" --kernel-log "$TMP/missing.log" --interval 1s --sample 200ms
wait_out "events: kernel log unreadable ($TMP/missing.log: not found) only" 10
sleep 2
stop_watch
expect_rc 0
[[ $(count_out "unreadable") == 1 ]] || fail "the unreadable log said more than once:
$(cat "$TMP/out")"
