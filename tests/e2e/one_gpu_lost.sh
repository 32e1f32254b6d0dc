# A lost GPU (NVML error 15) is critical; the others are reported in full and
# the lost one still shows on the PCI bus. It keeps its identity (bus id from
# the PCI bus, name and UUID from the driver's information file, said how),
# and its Xid 79 in the kernel log is the same finding: one step, one reboot.
source "$(dirname "$0")/common.sh"

run one-gpu-lost --json --sample 0
expect_rc 2
json_check 'd["gpus"][3]["status"] == "lost"'
json_check 'd["gpus"][3]["memory"]["used_bytes"] is None' "lost GPU memory is null"
json_check 'all(g["status"] == "ok" for g in d["gpus"] if g["index"] != 3)'
json_check 'len(d["pci_devices"]) == 8'
json_check 'd["gpus"][3]["pci"]["bus_id"] == "00000000:5D:00.0"' "the lost GPU's bus id, from the PCI bus"
json_check 'd["gpus"][3]["name"] == "NVIDIA H100 80GB HBM3" and d["gpus"][3]["uuid"] == "GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98"' "name and UUID from the driver"
json_check '"from the PCI bus" in d["gpus"][3]["identity_derived_from"] and "information" in d["gpus"][3]["identity_derived_from"]' "says how"

json_check '[f["id"] for f in d["findings"]] == ["gpu.lost"]' "lost and its Xid 79: one finding"
json_check 'd["findings"][0]["joined_ids"] == ["gpu.xid.79"] and d["findings"][0]["subject"]["pci_bus_id"] == "0000:5d:00.0"'
json_check '"Xid 79" in d["findings"][0]["title"] and "gpu.xid.79: " in d["findings"][0]["evidence"] and "from the PCI bus" in d["findings"][0]["evidence"]'
json_check 'len(d["plan"]) == 1 and sum("reboot" in c for c in d["plan"][0]["commands"]) == 1' "one step, one reboot"
json_check 'd["kernel_log"]["events"][0]["pci_bus_id"] == "0000:5d:00.0"'

run one-gpu-lost --sample 0 --no-color
expect_rc 2
expect_out_contains "GPU 3 (0000:5d:00.0) is lost"
expect_out_contains "$ ${SUDO}reboot"
grep -qE '^ +3 lost +0000:5D:00\.0 ' "$TMP/out" || fail "the table row shows the bus id: $(grep ' lost ' "$TMP/out")"
# One reboot in the plan (the first screen above it repeats its first step).
[[ $(sed -n '/^what to do/,$p' "$TMP/out" | grep -c '\$ .*reboot') == 1 ]] ||
  fail "one reboot: $(grep reboot "$TMP/out")"

# gpus=answering/on the bus: the lost GPU does not answer.
run one-gpu-lost --oneline --sample 0
[[ "$(cat "$TMP/out")" == "CRITICAL gpus=7/8 critical=1 warning=0 driver=570.133.20 ids=gpu.lost" ]] ||
  fail "oneline: $(cat "$TMP/out")"
