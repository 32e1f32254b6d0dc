# Issue 48 item 7: a restart loop with an intermediary between it and the
# launcher (`while :; do timeout 3600 python -m sglang.launch_server ...;
# done`). 1. The plan stops the loop and the intermediary before the
# launcher, and after `free --yes` nothing of the tree is left. 2. A loop
# the plan cannot stop (it has another child, so it is the owner, not a
# wrapper) starts the server again through a new `timeout`: the result
# names the new process and the loop, exit 2, never "done as planned".
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
# loop_script FILE EXTRA: a bash restart loop; EXTRA runs first (a second child).
loop_script() {
  cat >"$1" <<SH
#!/bin/bash
$2
while :; do
  rm -f "$TMP/workers"
  PYTHONPATH="$TMP" timeout 3600 "$PYTHON" -m sglang.launch_server --tp 1 --pid-file "$TMP/workers"
  sleep 0.2
done
SH
  chmod +x "$1"
}
sids=()
trap 'for s in "${sids[@]}"; do kill -9 $(in_session $s) 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
start_loop() {
  rm -f "$TMP/workers"
  setsid "$1" 2>/dev/null &
  sid=$!
  sids+=("$sid")
  wait_for "$TMP/workers"
  read -r W0 <"$TMP/workers"
  export W0
  launcher=$(awk '{print $4}' "/proc/$W0/stat")
  middle=$(awk '{print $4}' "/proc/$launcher/stat")
  [[ "$(cat /proc/$middle/comm)" == timeout ]] || fail "the launcher is not under timeout"
  free_scenario "$TMP/scenario.json" W0
}
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy --no-bundle "$@"; }

# 1. The loop is a wrapper: stopped first, through its intermediary.
loop_script "$TMP/serve.sh" ""
start_loop "$TMP/serve.sh"
free --json
json_check 'd["targets"][0]["signal_pids"] == ['"$sid, $middle, $launcher"']' "the loop, then timeout, then the launcher"
json_check 'd["targets"][0]["commands"][0].startswith("kill '"$sid"' ")' "the plan's steps stop the loop first"
free --yes --grace 2s --json
expect_rc 0
json_check 'd["failures"] == []'
expect_session_gone "$sid"

# 2. A loop that is not the server's alone: not stopped, and it starts
#    the server again. Seen, named, not done.
loop_script "$TMP/serve2.sh" "sleep 600 &"
start_loop "$TMP/serve2.sh"
free --yes --grace 2s
expect_rc 2
expect_out_contains "was started again"
expect_out_contains "by PID $sid ("
expect_out_contains "(started again)"
expect_out_contains "Result: NOT done as planned"
expect_out_lacks "Result: done as planned"
