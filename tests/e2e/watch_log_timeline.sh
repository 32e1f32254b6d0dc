# gpu-triage watch in log mode (stdout not a terminal), against a mock that
# plays a timeline: one line per change, each said once. The Xid 31 that
# NVML's event set delivers for GPU 3 at 5 s comes with its GPU and the
# SGLang server holding it; GPU 5, which stops answering at 8 s, is raised
# unresponsive once while the watch goes on (no tick hangs).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

start_watch watch-timeline --interval 1s --sample 200ms --timeout 2s --no-kernel-log
wait_out " started " 10
wait_out "gpu.unresponsive GPU 5" 20
sleep 2  # more ticks: nothing is said twice
stop_watch
expect_rc 0
expect_out_contains "watching 8 GPUs, 1 server;"
# Events: NVML event sets here, the kernel log not read.
expect_out_contains "note info: events: NVML events and kernel log not read (--no-kernel-log)"
[[ $(count_out "event warning gpu.xid.31 GPU 3") == 1 ]] || fail "Xid 31 not said once:
$(cat "$TMP/out")"
expect_out_contains "[SGLang pid-3141 (TP 8, GPUs 0-7)]: Xid 31"
t=$(at_s "gpu.xid.31")
((t >= 4 && t <= 10)) || fail "Xid 31 said at ${t} s, want about 5 s"
# The event's finding is that event: no second line for it.
[[ $(count_out "raised warning gpu.xid.31") == 0 ]] || fail "Xid 31 said twice"
[[ $(count_out "raised critical gpu.unresponsive GPU 5") == 1 ]] || fail "GPU 5 not said once"
t=$(at_s "gpu.unresponsive GPU 5")
((t >= 8 && t <= 14)) || fail "GPU 5 said unresponsive at ${t} s, want about 10 s (8 s + the 2 s deadline)"
# Every line is timestamped.
if grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z ' "$TMP/out"; then fail "untimed line"; fi

# --json: one JSON object per line, the same changes.
start_watch watch-timeline --interval 1s --sample 200ms --timeout 2s --no-kernel-log --json
wait_out '"gpu.xid.31"' 15
stop_watch
expect_rc 0
"$PYTHON" - "$TMP/out" <<'PY' || fail "JSON lines: $(cat "$TMP/out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["change"] == "started", rows[0]
x = [r for r in rows if r["id"] == "gpu.xid.31"]
assert len(x) == 1 and x[0]["change"] == "event" and x[0]["gpu"] == 3, x
assert x[0]["server"] == "SGLang pid-3141 (TP 8, GPUs 0-7)", x
assert x[0]["pci_bus_id"] == "0000:5d:00.0", x
assert all(set(r) == {"time", "change", "severity", "id", "gpu", "pci_bus_id", "server", "path",
                      "text"} for r in rows)
PY
