# A watchdog loop double-forks its worker, so the worker is reparented to
# init: when `free --yes` sees it started again, the restarter is unknown,
# and PID 1 (which only adopted it) is never named as what starts it.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

name="gtworker$$"
cat >"$TMP/watchdog.sh" <<SH2
#!/bin/bash
while true; do
  pgrep -f '^$name' >/dev/null || ( setsid bash -c 'exec -a $name sleep 1000' & )
  sleep 0.3
done
SH2
chmod +x "$TMP/watchdog.sh"
setsid "$TMP/watchdog.sh" &
dog=$!
workers() { pgrep -f "^$name" || true; }
trap 'kill -9 $dog 2>/dev/null; for p in $(workers); do kill -9 $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [[ -n "$(workers)" ]] && break; sleep 0.1; done
W0=$(workers | head -1)
[[ -n "$W0" ]] || fail "the watchdog started no worker"
export W0
free_scenario "$TMP/scenario.json" W0

run "$TMP/scenario.json" free --root / --sample 0 --include-busy --yes --grace 2s --json
expect_rc 2
json_check 'any("was started again" in f for f in d["failures"])' "the restart is seen"
json_check 'not any("PID 1 (" in f or "stop what starts it (PID 1" in f for f in d["failures"])' "PID 1 is never named as the restarter"
json_check 'any("what starts it is unknown" in f and "ps -eo pid,ppid,lstart,args" in f for f in d["failures"])' "the restarter is unknown, with how to find it"
