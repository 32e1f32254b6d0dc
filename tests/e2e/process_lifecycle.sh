# Processes tied to real PIDs: /proc facts come from the live process, its
# memory is released when it exits; a PID NVML reports that does not exist
# here is said to be invisible, never dropped.
source "$(dirname "$0")/common.sh"

sleep 300 &
child=$!
trap 'kill $child 2>/dev/null || true; rm -rf "$TMP"' EXIT
cat >"$TMP/scenario.json" <<JSON
{"driver_version": "550.90.07", "nvml_version": "12.550.90.07", "cuda_driver_version": 12040,
 "devices": [{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1", "pci": {"bus_id": "00000000:19:00.0", "device_id": "0x233010DE"},
   "memory": {"total_mib": 81559, "reserved_mib": 0, "used_mib": 0},
   "utilization": {"gpu": [40], "memory": [10]},
   "processes": [{"pid_env": "CHILD_PID", "used_mib": 40000, "type": "compute"},
                 {"pid": 999999, "used_mib": 1000, "type": "compute"}]}]}
JSON
export CHILD_PID=$child
# This machine's own clock and boot history (clock.*, incident.*) and its
# CUDA readiness (cuda.*, nccl.*: its real /dev, /dev/shm) are real findings
# here, not the test's: only the rest must be clean.
clean='[f["id"] for f in d["findings"] if f["severity"] in ("warning", "critical") and not f["id"].startswith(("clock.", "incident.", "cuda.", "nccl."))] == []'
# The real /proc (root "/"), so the child is visible with its command line.
run "$TMP/scenario.json" --json --sample 0 --root /
json_check "$clean" "no problem but this machine's clock"
json_check 'd["gpus"][0]["memory"]["used_bytes"] == 41000 * 2**20'
json_check 'd["gpus"][0]["processes"][0]["cmdline"] == "sleep 300" and d["gpus"][0]["processes"][0]["visible"] is True'
json_check 'd["gpus"][0]["processes"][0]["start_time_unix_s"] is not None'
json_check 'd["gpus"][0]["processes"][1]["visible"] is False and "not visible" in d["gpus"][0]["processes"][1]["visibility_note"]'
json_check 'd["gpus"][0]["processes"][1]["cmdline"] is None and d["gpus"][0]["processes"][1]["used_memory_bytes"] == 1000 * 2**20'

kill "$child"
wait "$child" 2>/dev/null || true
run "$TMP/scenario.json" --json --sample 0 --root /
json_check "$clean" "no problem but this machine's clock"
json_check 'd["gpus"][0]["memory"]["used_bytes"] == 1000 * 2**20' "memory released on exit"
json_check '[p["pid"] for p in d["gpus"][0]["processes"]] == [999999]'

run "$TMP/scenario.json" --sample 0 --root /
expect_out_contains "PID 999999 holds 1000 MiB but is not visible in this PID namespace"
