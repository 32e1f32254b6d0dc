# A restart loop keeps a server alive: `setsid serve.sh`, where serve.sh
# runs an SGLang-like launcher in a loop and ignores SIGTERM itself. The plan
# stops the loop first, then the launcher, and SIGKILLs what remains of that
# tree after the grace period (a launcher the loop started again included);
# after `free --yes` no process of the tree is left and nothing restarts.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
cat >"$TMP/serve.sh" <<SH
#!/bin/bash
trap 'echo "serve.sh: SIGTERM ignored" >&2' TERM
while true; do
  PYTHONPATH="$TMP" "$PYTHON" -m sglang.launch_server --tp 2 --pid-file "$TMP/workers"
  sleep 0.5
done
SH
chmod +x "$TMP/serve.sh"
setsid "$TMP/serve.sh" 2>"$TMP/serve.err" &
sid=$!
trap 'kill -9 $(in_session $sid) 2>/dev/null || true; rm -rf "$TMP"' EXIT
wait_for "$TMP/workers"
read -r -a workers <"$TMP/workers"
[[ ${#workers[@]} == 2 ]] || fail "the loop's launcher did not start its workers"
launcher=$(awk '{print $4}' "/proc/${workers[0]}/stat")
export W0=${workers[0]} W1=${workers[1]}
free_scenario "$TMP/scenario.json" W0 W1

# 1. The plan: the loop is the server's wrapper, stopped before its launcher.
run "$TMP/scenario.json" free --root / --sample 0 --include-busy --json
json_check 'len(d["targets"]) == 1 and d["targets"][0]["root_pid"] == '"$launcher"'' "the launcher is the root"
json_check 'd["targets"][0]["wrapper_pids"] == ['"$sid"'] and d["targets"][0]["signal_pids"] == ['"$sid"', '"$launcher"']' "the loop first, then the launcher"
json_check 'd["targets"][0]["commands"][0].startswith("kill '"$sid"' ")' "the commands stop the loop first"

# 2. --yes: nothing of the tree is left, and nothing comes back.
run "$TMP/scenario.json" free --root / --sample 0 --include-busy --yes --grace 3s --json
expect_rc 0
json_check 'any("SIGTERM to PID '"$sid"'" in a for a in d["actions"]) and any("SIGKILL to PID '"$sid"'" in a for a in d["actions"])' "the loop ignored SIGTERM and got SIGKILL"
json_check 'd["failures"] == []'
expect_session_gone $sid
