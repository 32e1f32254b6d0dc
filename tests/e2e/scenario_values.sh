# Each shipped scenario's distinctive values come through the NVML path
# intact: ECC and row remaps, PCIe links, MIG, old drivers, R535 records.
source "$(dirname "$0")/common.sh"

run ecc-remap --json --sample 0
expect_rc 2
json_check 'sorted(set(f["id"] for f in d["findings"])) == ["ecc.remap_failure", "ecc.remap_pending", "ecc.volatile_uncorrectable", "gpu.all_present", "gpu.xid.48", "gpu.xid.63", "gpu.xid.64"]'
json_check '[f["subject"]["gpu_index"] for f in d["findings"] if f["id"] == "gpu.xid.48"] == [2]' "Xid mapped to its GPU by bus id"
json_check 'd["gpus"][2]["ecc"]["errors"]["uncorrected"]["volatile"] == 3'
json_check 'd["gpus"][2]["ecc"]["errors"]["uncorrected"]["aggregate"] == 5'
json_check 'd["gpus"][2]["remapped_rows"] == {"correctable": 0, "uncorrectable": 2, "pending": True, "failure": False}'
json_check 'd["gpus"][6]["remapped_rows"]["failure"] is True and d["gpus"][6]["remapped_rows"]["uncorrectable"] == 9'
json_check 'all(g["retired_pages"]["single_bit_ecc_count"] is None for g in d["gpus"])' "Ampere: retired pages null"
run ecc-remap --sample 0
expect_out_contains "row remapping pending, needs a GPU reset"
expect_out_contains "row remapping failed"

run pcie-downtrained --json --sample 0
expect_rc 1
json_check '[(f["id"], f["subject"]["gpu_index"]) for f in d["findings"] if f["id"].startswith("pcie.")] == [("pcie.link_downgraded", 4), ("pcie.link_idle_low", 7)]' "busy GPU 4 flagged, idle GPU 7 only noted"
json_check 'd["gpus"][4]["pcie"]["link"] == {"gen": {"current": 3, "max": 5, "device_max": 5}, "width": {"current": 8, "max": 16}}'
json_check 'd["gpus"][7]["pcie"]["link"]["gen"]["current"] == 1'
json_check 'd["gpus"][4]["utilization"]["gpu_pct"]["min"] >= 95'
json_check '[p for p in d["pci_devices"] if p["bus_id"].lower() == d["gpus"][4]["pci"]["bus_id"].lower()[4:]][0]["link"]["width"]["current"] == 8' "sysfs agrees"

run mig-enabled --json --sample 0
expect_rc 0
json_check 'all(g["mig"]["mode"]["current"] is True for g in d["gpus"][:4])'
json_check 'all(g["utilization"]["gpu_pct"] is None for g in d["gpus"][:4])' "MIG: utilization null"
json_check 'd["gpus"][0]["processes"][1]["gpu_instance_id"] == 2 and d["gpus"][0]["processes"][1]["compute_instance_id"] == 0'
json_check 'd["gpus"][4]["processes"] == [] and d["gpus"][4]["processes"] is not None'

run old-driver-r470 --json --sample 400ms
expect_rc 1
json_check 'd["driver_version"] == "470.256.02" and d["cuda_driver_version"] == "11.4"'
json_check 'all(g["memory"]["reserved_bytes"] is None and g["memory"]["total_bytes"] == 32768 * 2**20 for g in d["gpus"])' "v1 memory call"
json_check 'd["gpus"][0]["retired_pages"] == {"single_bit_ecc_count": 2, "double_bit_ecc_count": 0, "pending": False}'
json_check 'd["gpus"][0]["processes"][0]["pid"] == 41001 and d["gpus"][0]["process_record_bytes"] == 24'
json_check 'd["gpus"][0]["clocks_event_reasons"]["active"] is not None' "throttle-name fallback"
json_check '"nvmlDeviceGetComputeRunningProcesses_v3" in d["nvml"]["missing_symbols"]'

run r535-records --json --sample 400ms
expect_rc 1
# Several processes share each GPU: each with its own memory, every one named.
json_check 'sorted((s["members"][0]["pid"], s["gpus"][0]["memory_bytes"]) for s in d["servers"]) == sorted([(20101, 30000 * 2**20), (20102, 12000 * 2**20), (20103, 4567 * 2**20), (20201, 25000 * 2**20), (20202, 8192 * 2**20), (20203, 1234 * 2**20)])' "six servers, each its own memory"
json_check 'sorted(c.split()[1] for p in d["plan"] for c in p["commands"] if c.startswith("kill")) == ["20101", "20102", "20103", "20201", "20202", "20203"]' "the plan names every holder"
json_check 'not any("GB" in f["title"] for f in d["findings"])' "binary units in findings"
json_check 'd["gpus"][0]["process_record_bytes"] == 32'
json_check '[(p["pid"], p["used_memory_bytes"]) for p in d["gpus"][0]["processes"]] == [(20101, 30000 * 2**20), (20102, 12000 * 2**20), (20103, 4567 * 2**20)]' "32-byte records read intact"
json_check 'all(not g["errors"] for g in d["gpus"])'

run healthy-h100x8 --json --sample 0
expect_rc 0
json_check 'd["verdict"] == "OK" and [f["id"] for f in d["findings"]] == ["gpu.all_present"]' "healthy: no warning"
json_check 'len(d["pci_devices"]) == 8' "NVSwitches (class 0x0680) are not GPUs"
json_check 'len(d["gpus"]) == 8 and all(g["status"] == "ok" and g["processes"] == [] and not g["errors"] for g in d["gpus"])'
json_check '[g["pci"]["bus_id"][9:11] for g in d["gpus"]] == ["19", "3B", "4C", "5D", "9B", "BB", "CB", "DB"]'
