# gpu-triage free never reaches outside its selection: a real TP=8 launcher
# with eight workers (one per GPU). --gpus 0-3 signals nothing and names
# GPUs 4-7 and their PIDs; --pid of the launcher is refused (it would take
# all eight); --pid of one worker signals exactly that worker; and
# --gpus 0-3 --whole-server stops all eight and reports each GPU released.
# The plan's commands are the report's for the same server.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
PYTHONPATH="$TMP" "$PYTHON" -m sglang.launch_server --model-path /models/x --tp 8 --pid-file "$TMP/workers" &
launcher=$!
# Kill our own workers only: other tests with workers of the same name run beside us.
trap 'kill -9 $launcher 2>/dev/null || true; kill -9 $(cat "$TMP/workers" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [[ -s "$TMP/workers" ]] && break; sleep 0.1; done
read -r -a workers <"$TMP/workers"
[[ ${#workers[@]} == 8 ]] || fail "launcher did not start its 8 workers"
devs=""
for i in $(seq 0 7); do
  export "W$i=${workers[$i]}"
  devs+="${devs:+,}{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-$i\",
    \"pci\": {\"bus_id\": \"00000000:$(printf %02X $((0x19 + i))):00.0\", \"device_id\": \"0x233010DE\"},
    \"memory\": {\"total_mib\": 81559, \"reserved_mib\": 0, \"used_mib\": 0},
    \"utilization\": {\"gpu\": [0], \"memory\": [0]},
    \"processes\": [{\"pid_env\": \"W$i\", \"used_mib\": 70000, \"type\": \"compute\"}]}"
done
printf '{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040, "devices": [%s]}' "$devs" >"$TMP/scenario.json"
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]]; }
all_alive() { for p in $launcher "${workers[@]}"; do alive "$p" || fail "$1: $p was signalled"; done; }
upper=$(IFS=,; echo "${workers[*]:4}")

# 1. Half the server selected: refused, naming GPUs 4-7 and their PIDs; nothing signalled.
free --gpus 0-3 --yes --grace 2s --json
expect_rc 2
json_check 'd["targets"] == [] and d["actions"] == []' "nothing planned, nothing done"
json_check 'any("GPUs 4-7" in r["reason"] and all(str(p) in r["reason"] for p in ['"$upper"']) and "--whole-server" in r["reason"] for r in d["refusals"])' "the refusal names GPUs 4-7 and their PIDs"
all_alive "--gpus 0-3"
free --gpus 0-3
expect_out_contains "GPUs 4-7, outside the selection"

# 2. --pid of the launcher would take all eight: refused.
free --pid $launcher --yes --json
expect_rc 2
json_check 'd["targets"] == [] and any(r["pid"] == '"$launcher"' for r in d["refusals"])'
all_alive "--pid launcher"

# 3. The plan's commands are the report's for the same server.
free --json
json_check 'len(d["targets"]) == 1 and d["targets"][0]["commands"] == ["kill '"$launcher"'   # SIGTERM to the launcher of PIDs '"${workers[*]}"'"]' "free names the launcher and every worker"
cp "$TMP/out" "$TMP/free.json"
run "$TMP/scenario.json" --root / --sample 400ms --json --no-kernel-log
"$PYTHON" - "$TMP/free.json" "$TMP/out" <<'PY' || fail "plan and free differ"
import json, sys
free = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
held = [f for f in report["findings"] if f["id"] == "memory.held_idle"]
assert len(held) == 1, held
assert held[0]["commands"] == free["targets"][0]["commands"], (held[0]["commands"], free["targets"][0]["commands"])
assert any(p["commands"] == held[0]["commands"] for p in report["plan"])
PY

# A PID given twice is one PID: listed and signalled once; one GPU is "GPU 6".
free --pid ${workers[6]} --pid ${workers[6]}
expect_out_contains "on GPU 6 through 1 process (PID ${workers[6]})"
expect_out_contains "kill ${workers[6]}   # SIGTERM to exactly the chosen PIDs"
all_alive "a dry run"

# 4. --pid of one worker: exactly that worker.
free --pid ${workers[5]} --yes --grace 2s --json
json_check 'd["targets"][0]["signal_pids"] == ['"${workers[5]}"'] and d["targets"][0]["gpus"] == [5]' "exactly the chosen PID"
if alive "${workers[5]}"; then fail "worker 5 survived"; fi
for p in $launcher "${workers[@]:0:5}" "${workers[@]:6}"; do alive "$p" || fail "--pid reached $p"; done

# 5. --whole-server: all of it stops, every GPU reported released.
free --gpus 0-3 --yes --whole-server --grace 3s --json
expect_rc 0
json_check 'd["targets"][0]["widened"] and sorted(g["index"] for g in d["gpus"]) == [0, 1, 2, 3, 4, 6, 7]' "GPUs of the whole server (GPU 5 already freed)"
json_check 'all(g["free"] for g in d["gpus"])' "each GPU released"
for p in $launcher "${workers[@]}"; do if alive "$p"; then fail "$p survived --whole-server"; fi; done
