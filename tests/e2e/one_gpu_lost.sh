# A lost GPU (NVML error 15) is critical; the others are reported in full and
# the lost one still shows on the PCI bus.
source "$(dirname "$0")/common.sh"

run one-gpu-lost --json --sample 0
expect_rc 2
json_check 'd["gpus"][3]["status"] == "lost"'
json_check 'd["gpus"][3]["memory"]["used_bytes"] is None' "lost GPU memory is null"
json_check 'all(g["status"] == "ok" for g in d["gpus"] if g["index"] != 3)'
json_check 'len(d["pci_devices"]) == 8'

json_check '[f["id"] for f in d["findings"]] == ["gpu.lost", "gpu.xid.79"]' "lost, and its Xid 79 from the kernel log"
json_check 'd["kernel_log"]["events"][0]["pci_bus_id"] == "0000:5d:00.0"'

run one-gpu-lost --sample 0
expect_rc 2
expect_out_contains "GPU 3 is lost"
expect_out_contains "$ sudo reboot"
