# Issue 31: launchers run by their script path ("python3 .../sglang/
# launch_server.py", as supervisord and pm2 run them) are launchers. Two
# TP=2 SGLang-like servers under one supervisor are two servers of two
# GPUs each, on their own ports (30000 and 30001), not four one-GPU
# servers each on "port 30000 (default port)".
source "$(dirname "$0")/common.sh"

script="$TMP/opt/sglang/python/sglang/launch_server.py"
mkdir -p "$(dirname "$script")"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$script"
"$PYTHON" "$GT_SOURCE_DIR/tests/free/fake_supervisor.py" "$TMP/launchers" -- \
  "$PYTHON" "$script" --model-path /models/a --tp 2 --port 30000 --pid-file "$TMP/a" :: \
  "$PYTHON" "$script" --model-path /models/b --tp 2 --port 30001 --pid-file "$TMP/b" &
sup=$!
trap 'kill -9 $sup $(cat "$TMP/launchers" "$TMP/a" "$TMP/b" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [[ -s "$TMP/a" && -s "$TMP/b" && -s "$TMP/launchers" ]] && break; sleep 0.1; done
read -r la lb <"$TMP/launchers"
read -r -a wa <"$TMP/a"
read -r -a wb <"$TMP/b"
[[ ${#wa[@]} == 2 && ${#wb[@]} == 2 ]] || fail "the launchers did not start their workers"
workers=("${wa[@]}" "${wb[@]}")
devs=""
for i in 0 1 2 3; do
  export "W$i=${workers[$i]}"
  devs+="${devs:+,}{\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-5b1c0de$i-77aa-4f00-9e11-00000000000$i\",
    \"pci\": {\"bus_id\": \"00000000:$(printf %02X $((0x19 + i))):00.0\", \"device_id\": \"0x233010DE\"},
    \"memory\": {\"total_mib\": 81559, \"reserved_mib\": 0, \"used_mib\": 0},
    \"utilization\": {\"gpu\": [0], \"memory\": [0]},
    \"processes\": [{\"pid_env\": \"W$i\", \"used_mib\": 70000, \"type\": \"compute\"}]}"
done
printf '{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040, "devices": [%s]}' "$devs" >"$TMP/scenario.json"

run "$TMP/scenario.json" --root / --json --sample 400ms
json_check 'len(d["servers"]) == 2' "two servers, not four"
json_check 'sorted((s["root_pid"], s["kind"], s["port"], s["port_source"], s["tensor_parallel"], len(s["members"])) for s in d["servers"]) == sorted([('"$la"', "SGLang", 30000, "--port", 2, 2), ('"$lb"', "SGLang", 30001, "--port", 2, 2)])' "each launcher with its own port and TP=2"
json_check 'all(s["supervisor"]["pid"] == '"$sup"' for s in d["servers"])' "the supervisor is their owner"
run "$TMP/scenario.json" --root /
expect_out_lacks "(default port)"
expect_out_contains "30001"
