# Issue 48: `watch --no-kernel-log` said which sources its events come from
# once, after five ticks, while NVML's event registration was still running
# ("kernel log not read only (NVML events: registering)"), and then showed
# NVML events: what it said was never corrected. The sources are said again
# whenever they change, before the events they bring. Here the mock takes
# 100 ms per registration (5 event types on 8 GPUs: 4 s; the note is due
# at about 2.5 s).
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/watch.sh"

cp -r "$GT_SOURCE_DIR/tests/scenarios/watch-timeline" "$TMP/late"
"$PYTHON" - "$TMP/late/scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["latency_ms"]["nvmlDeviceRegisterEvents"] = 100
json.dump(s, open(sys.argv[1], "w"))
PY
start_watch "$TMP/late" --interval 500ms --sample 100ms --timeout 2s --no-kernel-log
wait_out "events: none yet: kernel log not read (--no-kernel-log), NVML events: registering" 10
wait_out "events: NVML events and kernel log not read (--no-kernel-log)" 15
stop_watch
expect_rc 0
"$PYTHON" - "$TMP/out" <<'PY' || fail "sources and events out of order: $(cat "$TMP/out")"
import sys
lines = open(sys.argv[1]).read().splitlines()
said = [i for i, l in enumerate(lines) if "note info: events: NVML events and" in l]
events = [i for i, l in enumerate(lines) if " event " in l]
assert len(said) == 1, said
assert all(i > said[0] for i in events), (said, events)
PY
