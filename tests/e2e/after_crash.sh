# The demo scenario: 8 GPUs each holding ~75.8 GB at 0% utilization, held by
# SGLang schedulers (one per TP rank) that the sglang.service unit started;
# the NVML library (565.57.01) differs from the kernel module (590.48.01).
source "$(dirname "$0")/common.sh"

run after-crash --json --sample 200ms
expect_rc 0
json_check 'd["gpu_count"] == 8 and len(d["gpus"]) == 8'
json_check 'd["kernel_module_version"] == "590.48.01"' "kernel module version from /sys"
json_check 'd["nvml"]["library_version"] == "565.57.01"' "library version from the real file name"
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

run after-crash
expect_rc 0
expect_out_contains "NVML library 565.57.01 differs from kernel module 590.48.01"
expect_out_contains "unit sglang.service"
expect_out_contains "sglang::scheduler_TP7"
