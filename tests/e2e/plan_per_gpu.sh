# One step per GPU, one voice per step (issue 23 item 2). ecc-remap: GPU 2
# (Xid 48, then Xid 63, volatile uncorrectable ECC, a remap pending) is one
# reset step that does not ask whether Xid 63 followed (the log says it
# did), with the reset as a command for GPU 2; GPU 6 (Xid 64, remap
# failure) is one RMA step with no reset or reboot beside it.
source "$(dirname "$0")/common.sh"

run ecc-remap --json --sample 0
expect_rc 2
json_check 'len(d["plan"]) == 2' "two GPUs, two steps: $(cat "$TMP/out" | head -c 0)"
json_check 'd["plan"][0]["gpu"] == "0000:47:00.0" and d["plan"][1]["gpu"] == "0000:b7:00.0"'
json_check 'set(d["plan"][0]["finding_ids"]) >= {"gpu.xid.48", "gpu.xid.63", "ecc.volatile_uncorrectable", "ecc.remap_pending"}' "GPU 2: the Xids and the ECC evidence"
json_check '"'"${SUDO}"'nvidia-smi -r -i 2" in d["plan"][0]["commands"]' "the reset, GPU filled in"
json_check '"if no Xid 63" not in d["plan"][0]["text"] and "Xid 63 followed" in d["plan"][0]["text"]' "a known condition is not asked"
json_check 'd["plan"][1]["finding_ids"][0] in ("ecc.remap_failure",) and "gpu.xid.64" in d["plan"][1]["finding_ids"]' "GPU 6: the RMA leads"
json_check 'not any("nvidia-smi -r" in c or c.endswith("reboot") for c in d["plan"][1]["commands"])' "no reset or reboot beside the RMA"
json_check 'all("<index>" not in s["text"] for s in d["plan"])'
