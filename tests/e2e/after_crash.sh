# The demo scenario: 8 GPUs each holding ~75.8 GB at 0% utilization, held by
# SGLang schedulers (one per TP rank) that the sglang.service unit started;
# the driver is 590.48.01 throughout (module, NVML, libcuda: NVIDIA's rules
# R1-R3, docs/physics.md), so nothing predicts a CUDA failure (issue 46).
source "$(dirname "$0")/common.sh"

run after-crash --json --sample 200ms
expect_rc 1
json_check 'd["gpu_count"] == 8 and len(d["gpus"]) == 8'
json_check 'd["kernel_module_version"] == "590.48.01"' "kernel module version from /sys"
json_check 'd["nvml"]["library_version"] == "590.48.01"' "library version from the real file name"
json_check 'd["driver_version"] == "590.48.01" and d["cuda_driver_version"] == "13.1"'
json_check 'all(g["name"] == "NVIDIA RTX PRO 6000 Blackwell Server Edition" for g in d["gpus"])'
json_check 'all(abs(g["memory"]["used_bytes"] - 75.8e9) < 0.2e9 for g in d["gpus"])' "75.8 GB used"
json_check 'all(g["utilization"]["gpu_pct"]["max"] == 0 and g["utilization"]["gpu_pct"]["samples"] >= 2 for g in d["gpus"])' "0% over several samples"
json_check 'all(g["persistence_mode"] is True for g in d["gpus"])'
json_check 'all(len(g["processes"]) == 1 for g in d["gpus"])'
json_check 'all(g["processes"][0]["cmdline"] == "sglang::scheduler_TP%d" % g["index"] for g in d["gpus"])' "SGLang scheduler per TP rank"
json_check 'all(g["processes"][0]["owner"] == {"kind": "systemd-unit", "name": "sglang.service", "container_id": None, "cgroup_path": "/system.slice/sglang.service"} for g in d["gpus"])' "owned by sglang.service"
json_check 'all(g["processes"][0]["user"] == "svc-llm" and g["processes"][0]["visible"] for g in d["gpus"])'
json_check 'all(g["fan"]["speed_pct"] is None for g in d["gpus"])' "fanless board: fan is null, not 0"
json_check 'len(d["pci_devices"]) == 8 and all(p["driver"] == "nvidia" for p in d["pci_devices"])'

json_check 'd["verdict"] == "WARNING" and d["exit_code"] == 1'
json_check 'sorted(set(f["id"] for f in d["findings"])) == ["gpu.all_present", "memory.held_idle"]' "exactly the expected findings: no CUDA failure beside live CUDA processes"
# One server, one finding: naming the unit, TP 8 and GPUs 0-7.
json_check 'sum(f["id"] == "memory.held_idle" for f in d["findings"]) == 1' "one finding for one server"
json_check 'all("sglang.service" in f["title"] and "TP=8" in f["title"] and "GPUs 0-7" in f["title"] and "started 12 s after boot" in f["title"] for f in d["findings"] if f["id"] == "memory.held_idle")' "the finding names the unit, TP 8, GPUs 0-7 and the auto-start"
json_check 'len(d["servers"]) == 1' "one server"
json_check 'd["servers"][0]["kind"] == "SGLang" and len(d["servers"][0]["members"]) == 8 and d["servers"][0]["root_pid"] == 3141' "SGLang with 8 members under launcher 3141"
json_check '[g["index"] for g in d["servers"][0]["gpus"]] == list(range(8))'
json_check 'd["servers"][0]["tensor_parallel"] == 8 and d["servers"][0]["port"] == 30000 and d["servers"][0]["model"] == "/models/Kimi-K2.5"'
json_check 'd["servers"][0]["owner_name"] == "sglang.service" and d["servers"][0]["restart_policy"] == "Restart=always" and d["servers"][0]["restarts_when_signalled"]'
json_check 'd["servers"][0]["auto_started"] and d["servers"][0]["started_after_boot_s"] == 12'
json_check 'all(m["memory"][0]["memory_bytes"] == g["processes"][0]["used_memory_bytes"] for m, g in zip(d["servers"][0]["members"], d["gpus"]))' "each member with its own memory"
json_check 'any(f["id"] == "gpu.all_present" and f["severity"] == "ok" for f in d["findings"])' "all present: a finding, not a step"
json_check "d['plan'][0]['commands'] == ['${SUDO}systemctl stop sglang.service', '${SUDO}systemctl disable sglang.service']" "first: stop the server that blocks the job"
json_check '[p["finding_ids"] for p in d["plan"]] == [["memory.held_idle"]]' "one step"
json_check "sum('sglang.service' in p['text'] and p['commands'] == ['${SUDO}systemctl stop sglang.service', '${SUDO}systemctl disable sglang.service'] for p in d['plan']) == 1" "one plan step stops and disables the unit"

run after-crash
expect_rc 1
head -1 "$TMP/out" | grep -q "^WARNING" || fail "verdict first: $(head -1 "$TMP/out")"
expect_out_contains "driver 590.48.01 (NVML)  kernel module 590.48.01  NVML library 590.48.01  CUDA 13.1"
expect_out_lacks "differs from kernel module"
expect_out_lacks "cuInit 803"
expect_out_contains "unit sglang.service"
expect_out_contains "sglang::scheduler_TP7"
expect_out_contains "Stop the idle SGLang server (systemd unit sglang.service, started 12 s after"
expect_out_contains "$ ${SUDO}systemctl disable sglang.service"

run after-crash --oneline --sample 0
expect_rc 0
# --sample 0: utilization is not sampled over a window, so no idleness is claimed.
[[ "$(cat "$TMP/out")" == "OK gpus=8/8 critical=0 warning=0 driver=590.48.01" ]] || fail "oneline: $(cat "$TMP/out")"
run after-crash --oneline --sample 400ms
expect_rc 1
[[ "$(cat "$TMP/out")" == "WARNING gpus=8/8 critical=0 warning=1 driver=590.48.01 ids=memory.held_idle" ]] || fail "oneline: $(cat "$TMP/out")"

run after-crash --oneline --sample 400ms --exit-codes npd
expect_rc 1
