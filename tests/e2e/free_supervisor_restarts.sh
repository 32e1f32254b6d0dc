# A supervisor that starts its servers again (supervisord's autorestart):
# two SGLang-like launchers, TP=2 on GPUs 0-1 and 2-3. `free --gpus 0-1
# --yes` stops server A as planned, never the supervisor (not selected), but
# the supervisor starts A again: the result is an error naming the new
# process and the command line that stops the supervisor, never "free".
# That command line (`--pid S --whole-server`) is accepted, its plan says
# the supervisor is stopped (not "not stopped here"), and it stops all.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
PYTHONPATH="$TMP" "$PYTHON" "$GT_SOURCE_DIR/tests/free/fake_supervisor.py" --restart "$TMP/launchers" -- \
  "$PYTHON" -m sglang.launch_server --model-path /models/a --tp 2 --port 30000 --pid-file "$TMP/a" :: \
  "$PYTHON" -m sglang.launch_server --model-path /models/b --tp 2 --port 30001 --pid-file "$TMP/b" &
sup=$!
everything() { ps -e -o pid=,args= | awk -v t="$TMP" 'index($0, t) && !/awk/ {print $1}'; }
trap 'kill -9 $sup $(everything) $(cat "$TMP/a" "$TMP/b" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for f in a b launchers; do wait_for "$TMP/$f"; done
read -r la lb <"$TMP/launchers"
read -r W0 W1 <"$TMP/a"
read -r W2 W3 <"$TMP/b"
export W0 W1 W2 W3
free_scenario "$TMP/scenario.json" W0 W1 W2 W3
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }

# 1. --gpus 0-1 --yes: server A stops, the supervisor starts it again: an error.
free --gpus 0-1 --yes --grace 3s --json
expect_rc 2
json_check 'any("started again" in f and "'"$sup"'" in f and "--pid '"$sup"' --whole-server" in f for f in d["failures"])' "the restart is an error naming the supervisor and how to stop it"
json_check 'not any(g["free"] for g in d["gpus"])' "a GPU its server is started on again is not called free"
json_check 'not any(a.startswith("sent ") and " PID '"$sup"' " in a + " " for a in d["actions"])' "the supervisor, not selected, was not signalled"
alive "$sup" || fail "the supervisor was stopped without being selected"
# The GPUs as NVML would show them now: the new launcher's workers on 0-1.
restarted() {
  local old="$W0"
  for _ in $(seq 100); do
    read -r W0 W1 <"$TMP/a"
    [[ "$W0" != "$old" ]] && alive "$W0" && return 0
    sleep 0.1
  done
  fail "the supervisor did not start server A again"
}
restarted
export W0 W1
free --gpus 0-1 --yes --grace 3s
expect_rc 2
expect_out_contains "started again"
expect_out_contains "(started again)"
expect_out_contains "Result: NOT done as planned"
expect_out_lacks "Result: done as planned"
restarted
export W0 W1

# 2. The command line that error points to: accepted, and its plan text
#    stops the supervisor it names (no "not stopped here" above it).
free --pid "$sup" --whole-server
expect_rc 1
expect_out_contains "owner process PID $sup"
expect_out_lacks "not stopped here"
expect_out_contains "SIGTERM to PIDs $sup, then"
free --pid "$sup" --whole-server --yes --grace 3s --json
expect_rc 0
json_check 'any(a.startswith("sent SIGTERM to PID '"$sup"' ") for a in d["actions"]) and d["failures"] == []'
alive "$sup" && fail "the supervisor survived"
left=$(everything)
[[ -z "$left" ]] || fail "processes of the supervisor's servers remain: $left"
