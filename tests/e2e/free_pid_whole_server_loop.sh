# A bash restart loop around a launcher, the shape of issue 31:
# `while true; do launcher; sleep 1; done`. `free --pid LAUNCHER
# --whole-server` takes the server whole, as --gpus does: SIGTERM to the loop
# first, then the launcher, SIGKILL to every process of the tree after the
# grace period; after --yes nothing of it runs and nothing comes back.
# `--pid LAUNCHER` alone is refused, pointing to --whole-server.
source "$(dirname "$0")/common.sh"
source "$GT_SOURCE_DIR/tests/free/scenario.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
export PYTHONPATH="$TMP"
setsid bash -c "while true; do \"$PYTHON\" -m sglang.launch_server --tp 2 --pid-file \"$TMP/workers\"; sleep 1; done" &
loop=$!
trap 'kill -9 $(in_session $loop) 2>/dev/null || true; rm -rf "$TMP"' EXIT
wait_for "$TMP/workers"
read -r W0 W1 <"$TMP/workers"
export W0 W1
launcher=$(awk '{print $4}' "/proc/$W0/stat")
free_scenario "$TMP/scenario.json" W0 W1
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }

# 1. --pid LAUNCHER alone would leave the loop to start it again: refused,
#    pointing to --whole-server.
free --pid "$launcher" --json
expect_rc 2
json_check 'd["targets"] == [] and any("--whole-server" in r["reason"] for r in d["refusals"])' "refused with the way to widen it"

# 2. The plan with --whole-server: the loop first, then the launcher, and
#    SIGKILL to every process of the tree; the text says the same PIDs.
free --pid "$launcher" --whole-server --json
expect_rc 1
json_check 'len(d["targets"]) == 1 and d["targets"][0]["wrapper_pids"] == ['"$loop"']' "the loop is the wrapper"
json_check 'd["targets"][0]["signal_pids"] == ['"$loop"', '"$launcher"']' "SIGTERM to the loop, then the launcher"
json_check 'sorted(d["targets"][0]["kill_pids"]) == sorted(['"$loop, $launcher, $W0, $W1"'])' "SIGKILL to every process of the tree"
free --pid "$launcher" --whole-server
expect_out_contains "would do: SIGTERM to PIDs $loop, then $launcher, SIGKILL after 30 s to any of PIDs"
expect_out_contains "$ kill $loop "

# 3. --yes: exactly that; nothing of the tree runs, and nothing comes back.
free --pid "$launcher" --whole-server --yes --grace 3s --json
expect_rc 0
json_check 'any("SIGTERM to PID '"$loop"'" in a for a in d["actions"])' "the loop got SIGTERM"
json_check 'd["failures"] == [] and all(g["free"] for g in d["gpus"])'
expect_session_gone $loop
