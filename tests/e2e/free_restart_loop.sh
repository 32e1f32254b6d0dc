# A restart loop keeps a server alive: `setsid serve.sh`, where serve.sh
# runs an SGLang-like launcher in a loop and ignores SIGTERM itself. The plan
# stops the loop first, then the launcher, and SIGKILLs what remains of that
# tree after the grace period (a launcher the loop started again included);
# after `free --yes` no process of the tree is left and nothing restarts.
source "$(dirname "$0")/common.sh"

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
# Zombies (exited, not yet reaped) run nothing and are not counted.
in_session() { ps -e -o sid=,pid=,stat= | awk -v s="$sid" '$1 == s && $3 !~ /^Z/ {print $2}'; }
trap 'kill -9 $(in_session) 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [[ -s "$TMP/workers" ]] && break; sleep 0.1; done
read -r -a workers <"$TMP/workers"
[[ ${#workers[@]} == 2 ]] || fail "the loop's launcher did not start its workers"
launcher=$(awk '{print $4}' "/proc/${workers[0]}/stat")
export W0=${workers[0]} W1=${workers[1]}
dev() {
  printf '{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%s", "pci": {"bus_id": "00000000:%02X:00.0", "device_id": "0x233010DE"},
    "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0}, "utilization": {"gpu": [0], "memory": [0]},
    "processes": [{"pid_env": "%s", "used_mib": 70000, "type": "compute"}]}' "$1" $((0x19 + $1)) "$2"
}
printf '{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040, "devices": [%s, %s]}' \
  "$(dev 0 W0)" "$(dev 1 W1)" >"$TMP/scenario.json"

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
left=$(in_session)
[[ -z "$left" ]] || fail "processes of the tree remain: $left"
sleep 2
left=$(in_session)
[[ -z "$left" ]] || fail "the server came back: $left"
