# A supervisor that forwards SIGTERM runs two SGLang-like launchers, TP=4
# each on GPUs 0-3 and 4-7: they are two servers, the supervisor is their
# owner. `free --pid <launcher A> --whole-server --yes` stops server A and
# leaves the supervisor and server B running; --gpus takes UUIDs and bus
# ids as nvidia-smi -i does; --pid on one rank warns that its group fails.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
PYTHONPATH="$TMP" "$PYTHON" "$GT_SOURCE_DIR/tests/free/fake_supervisor.py" "$TMP/launchers" -- \
  "$PYTHON" -m sglang.launch_server --model-path /models/a --tp 4 --port 30000 --pid-file "$TMP/a" :: \
  "$PYTHON" -m sglang.launch_server --model-path /models/b --tp 4 --port 30001 --pid-file "$TMP/b" &
sup=$!
trap 'kill -9 $sup $(cat "$TMP/launchers" "$TMP/a" "$TMP/b" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [[ -s "$TMP/a" && -s "$TMP/b" && -s "$TMP/launchers" ]] && break; sleep 0.1; done
read -r la lb <"$TMP/launchers"
read -r -a wa <"$TMP/a"
read -r -a wb <"$TMP/b"
[[ ${#wa[@]} == 4 && ${#wb[@]} == 4 ]] || fail "the launchers did not start their workers"
workers=("${wa[@]}" "${wb[@]}")
devs=""
for i in $(seq 0 7); do
  export "W$i=${workers[$i]}"
  devs+="${devs:+,}{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-5b1c0de$i-77aa-4f00-9e11-00000000000$i\",
    \"pci\": {\"bus_id\": \"00000000:$(printf %02X $((0x19 + i))):00.0\", \"device_id\": \"0x233010DE\"},
    \"memory\": {\"total_mib\": 81559, \"reserved_mib\": 0, \"used_mib\": 0},
    \"utilization\": {\"gpu\": [0], \"memory\": [0]},
    \"processes\": [{\"pid_env\": \"W$i\", \"used_mib\": 70000, \"type\": \"compute\"}]}"
done
printf '{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040, "devices": [%s]}' "$devs" >"$TMP/scenario.json"
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]]; }

# 1. Two servers, each rooted at its launcher, the supervisor shown as their owner.
free --json
json_check 'len(d["targets"]) == 2' "two servers, not one"
json_check 'sorted((t["root_pid"], t["gpus"]) for t in d["targets"]) == sorted([('"$la"', [0, 1, 2, 3]), ('"$lb"', [4, 5, 6, 7])])' "each launcher is the root of its four GPUs"
json_check 'all(t["supervisor_pid"] == '"$sup"' and t["signal_pids"] == [t["root_pid"]] for t in d["targets"])' "the supervisor is the owner, never signalled"
free
expect_out_contains "owner process PID $sup"

# 2. --gpus 0-3 is server A alone: planned, nothing refused.
free --gpus 0-3 --json
json_check 'len(d["targets"]) == 1 and d["targets"][0]["root_pid"] == '"$la"' and d["refusals"] == []'

# 3. A UUID and a bus id select the same GPU as its index (nvidia-smi -i).
free --gpus 4 --json
cp "$TMP/out" "$TMP/by_index.json"
for sel in GPU-5b1c0de4-77aa-4f00-9e11-000000000004 0000:1D:00.0 00000000:1d:00.0 1D:00.0; do
  free --gpus "$sel" --json
  "$PYTHON" - "$TMP/by_index.json" "$TMP/out" "$sel" <<'PY' || fail "--gpus $sel differs from --gpus 4"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [g["index"] for g in b["gpus"]] == [4], (sys.argv[3], b["gpus"])
assert a["refusals"] == b["refusals"] and a["targets"] == b["targets"], sys.argv[3]
PY
done
free --gpus GPU-00000000-0000-0000-0000-000000000000
expect_rc 64
grep -q "no GPU with that UUID" "$TMP/err" || fail "the unknown UUID is not named: $(cat "$TMP/err")"

# 4. --pid on one rank: planned, with the warning that the other ranks fail.
free --pid "${wb[1]}" --json
json_check 'd["targets"][0]["signal_pids"] == ['"${wb[1]}"'] and any("will hang or fail" in w and "--pid '"$lb"'" in w for w in d["warnings"])' "the TP group warning"

# 5. --pid <launcher A> --whole-server --yes: server A stops; the supervisor and server B run on.
free --pid "$la" --whole-server --yes --grace 5s --json
expect_rc 0
json_check 'd["targets"][0]["signal_pids"] == ['"$la"']' "exactly the named PID"
json_check 'not any(a.startswith("sent ") and a.split()[4] in ("'"$sup"'", "'"$lb"'") for a in d["actions"])' "nothing sent to the supervisor or server B"
for p in $la "${wa[@]}"; do if alive "$p"; then fail "server A's PID $p survived"; fi; done
for p in $sup $lb "${wb[@]}"; do alive "$p" || fail "PID $p outside the selection was stopped"; done
