# gpu-triage free against real stand-in processes tied to mock NVML memory:
# an SGLang-like launcher with 4 workers (GPUs 0-3), a vLLM-like worker that
# ignores SIGTERM (GPU 4), and a process of another user (GPU 5). The plan
# changes nothing; --yes frees exactly the selected GPUs; SIGKILL follows
# the grace period; nothing outside the selection is ever signalled.
source "$(dirname "$0")/common.sh"

mkdir -p "$TMP/sglang"
cp "$GT_SOURCE_DIR/tests/free/fake_sglang.py" "$TMP/sglang/launch_server.py"
PYTHONPATH="$TMP" "$PYTHON" -m sglang.launch_server --model-path /models/x --tp 4 --pid-file "$TMP/workers" &
launcher=$!
bash -c 'trap "" TERM; exec -a "VLLM::Worker_TP0" sleep 600' &
vllm=$!
if [[ $(id -u) == 0 ]]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
else
  sleep 600 &  # not root: our own process stands in (only root may stop others')
fi
other=$!
# Kill our own workers only: other tests with workers of the same name run beside us.
trap 'kill -9 $launcher $vllm $other 2>/dev/null || true; kill -9 $(cat "$TMP/workers" 2>/dev/null) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [[ -s "$TMP/workers" ]] && break; sleep 0.1; done
read -r -a workers <"$TMP/workers"
[[ ${#workers[@]} == 4 ]] || fail "launcher did not start its workers"
wl=$(IFS=,; echo "${workers[*]}")
export W0=${workers[0]} W1=${workers[1]} W2=${workers[2]} W3=${workers[3]} VLLM=$vllm OTHER=$other

dev() {  # dev INDEX PID_ENV
  printf '{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%s", "pci": {"bus_id": "00000000:%02X:00.0", "device_id": "0x233010DE"},
    "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0}, "utilization": {"gpu": [0], "memory": [0]},
    "processes": [{"pid_env": "%s", "used_mib": 70000, "type": "compute"}]}' "$1" $((0x19 + $1)) "$2"
}
cat >"$TMP/scenario.json" <<JSON
{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040,
 "devices": [$(dev 0 W0), $(dev 1 W1), $(dev 2 W2), $(dev 3 W3), $(dev 4 VLLM), $(dev 5 OTHER),
   {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-6", "pci": {"bus_id": "00000000:1F:00.0", "device_id": "0x233010DE"},
    "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0}, "utilization": {"gpu": [0], "memory": [0]}}]}
JSON
free() { run "$TMP/scenario.json" free --root / --sample 0 --include-busy "$@"; }
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]]; }

# 1. The plan names the launcher as the root of the tree and changes nothing.
free --json
expect_rc 1
json_check 'd["mode"] == "plan" and d["actions"] == []'
json_check 'any(t["root_pid"] == '"$launcher"' and t["label"] == "SGLang" and sorted(t["holder_pids"]) == sorted(['"$wl"']) and t["gpus"] == [0, 1, 2, 3] for t in d["targets"])' "launcher is the root of its 4 workers"
json_check 'any(t["root_pid"] == '"$vllm"' and t["label"] == "vLLM" for t in d["targets"])'
for p in $launcher "${workers[@]}" $vllm $other; do alive "$p" || fail "the plan killed $p"; done

# 2. Selected GPUs 0-3 only: the SGLang tree goes, nothing else is touched.
free --gpus 0-3 --yes --grace 5s --json
expect_rc 0
json_check 'd["mode"] == "act" and any("SIGTERM to PID '"$launcher"'" in a for a in d["actions"])'
json_check 'all(g["free"] and g["used_before_bytes"] == 70000 * 2**20 and g["used_after_bytes"] == 0 and g["released_after_s"] is not None for g in d["gpus"])' "4 GPUs freed, memory released reported"
json_check 'not any("SIGKILL" in a for a in d["actions"])' "SIGTERM sufficed"
for p in $launcher "${workers[@]}"; do if alive "$p"; then fail "$p survived"; fi; done
alive $vllm || fail "vLLM worker outside the selection was signalled"
alive $other || fail "other user's process outside the selection was signalled"

# 3. A process that ignores SIGTERM gets SIGKILL after the grace period.
free --gpus 4 --yes --grace 1s --json
expect_rc 0
json_check 'any("SIGTERM to PID '"$vllm"'" in a for a in d["actions"]) and any("SIGKILL to PID '"$vllm"'" in a for a in d["actions"])'
if alive $vllm; then fail "SIGTERM-ignoring process survived"; fi
alive $other || fail "GPU 5's process was signalled"

# 4. As root, another user's process may be stopped; --pid restricts.
free --pid $other --yes --grace 2s --json
expect_rc 0
if alive $other; then fail "other user's process survived"; fi

# 5. --pid of a process that holds no GPU memory is refused, nothing done.
sleep 600 &
bystander=$!
free --pid $bystander --yes --json
expect_rc 2
json_check 'any(r["pid"] == '"$bystander"' and "holds no GPU memory" in r["reason"] for r in d["refusals"])'
alive $bystander || fail "bystander signalled"
kill $bystander

# 6. Human output of the plan on the fixture after-crash node: the unit and its fix.
run after-crash free --sample 0 --include-busy
expect_rc 1
expect_out_contains "root PID 3141"
expect_out_contains "systemd unit sglang.service (Restart=always)"
expect_out_contains "$ ${SUDO}systemctl disable sglang.service"
run after-crash free --sample 0 --include-busy --yes
expect_rc 2
expect_out_contains "never acted on"
