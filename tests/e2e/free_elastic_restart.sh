# Issue 48 item 8: `free --pid WORKER --yes` under a launcher that restarts
# dead workers (torchrun's elastic agent): the agent starts the worker group
# again 0.2 s later with the same command line. The result says the worker
# was started again and that its launcher restarts workers, exit 2, never
# "GPU 0 free".
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/bin"
cp "$GT_SOURCE_DIR/tests/free/fake_elastic_agent.py" "$TMP/bin/torchrun"
printf 'import time\ntime.sleep(600)\n' >"$TMP/train.py"
"$PYTHON" "$TMP/bin/torchrun" --nproc-per-node 2 --pid-file "$TMP/workers" "$TMP/train.py" &
agent=$!
trap 'kill -9 $agent $(cat "$TMP/workers" 2>/dev/null) 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for "$TMP/workers"
read -r W0 W1 <"$TMP/workers"
export W0 W1
free_scenario "$TMP/scenario.json" W0 W1

run "$TMP/scenario.json" free --root / --sample 0 --include-busy --no-bundle --pid "$W0" --yes --grace 2s --json
expect_rc 2
json_check 'any("was started again" in f and "by PID '"$agent"' " in f and "starts workers that exit again" in f and "--pid '"$agent"' --whole-server" in f for f in d["failures"])' "the respawn is seen, and the launcher that restarts workers named"
json_check 'not d["gpus"][0]["free"]' "GPU 0 is not called free"
