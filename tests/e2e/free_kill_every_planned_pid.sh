# SIGKILL after the grace period reaches every PID the plan names, not only
# the one the operator typed: a launcher whose workers ignore SIGTERM
# (`trap '' TERM`; it exits without them), stopped with `--pid LAUNCHER
# --whole-server`, and the orphans such a launcher leaves behind (adopted by
# init, their launcher gone), stopped with `--pid ONE_WORKER --whole-server`.
# After --yes every planned PID is gone and the result says so, with exit 0;
# a server of the same kind started meanwhile is left alone and not taken
# for the stopped one started again.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
export PYTHONPATH="$TMP"
# start NAME: a launcher with 2 workers that ignore SIGTERM, leading its own
# process group as a launcher started from a terminal does.
start() {
  setsid "$PYTHON" -m sglang.launch_server --tp 2 --workers-ignore-term --pid-file "$TMP/$1" &
  echo $! >"$TMP/$1.launcher"
  wait_for "$TMP/$1"
}
trap 'kill -9 $(cat "$TMP"/[abc]* 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }

# 1. --pid LAUNCHER --whole-server: SIGKILL to the workers that outlive it.
start a
launcher=$(cat "$TMP/a.launcher")
read -r W0 W1 <"$TMP/a"
export W0 W1
free_scenario "$TMP/scenario.json" W0 W1
free --pid "$launcher" --whole-server --json
json_check 'sorted(d["targets"][0]["kill_pids"]) == sorted(['"$launcher, $W0, $W1"'])' "the plan names the launcher and both workers"
free --pid "$launcher" --whole-server --yes --grace 2s --json
expect_rc 0
for w in $W0 $W1; do
  json_check 'any(a.startswith("sent SIGKILL to PID '"$w"' ") for a in d["actions"])' "SIGKILL to worker $w"
  if alive "$w"; then fail "worker $w ignored SIGTERM and was not killed"; fi
done
json_check 'd["failures"] == [] and all(g["free"] for g in d["gpus"])'

# 2. Orphans: the launcher exited and left its workers; one of them named with
#    --whole-server takes the whole orphaned server, each worker signalled.
start b
kill -TERM "$(cat "$TMP/b.launcher")"
wait "$(cat "$TMP/b.launcher")" 2>/dev/null || true
read -r W0 W1 <"$TMP/b"
export W0 W1
for w in $W0 $W1; do alive "$w" || fail "worker $w did not outlive its launcher"; done
free --pid "$W0" --whole-server --json
json_check 'd["targets"][0]["launcher_exited"] and sorted(d["targets"][0]["signal_pids"]) == sorted(['"$W0, $W1"'])' "each orphan is signalled"
# Meanwhile another server of the same kind starts (its workers have the same
# titles): it is neither "started again" nor signalled.
(sleep 0.5 && start c) &
free --pid "$W0" --whole-server --yes --grace 1s --json
expect_rc 0
for w in $W0 $W1; do if alive "$w"; then fail "orphan $w survived"; fi; done
wait_for "$TMP/c"
for p in $(cat "$TMP/c.launcher" "$TMP/c"); do alive "$p" || fail "PID $p of the other server was stopped"; done
