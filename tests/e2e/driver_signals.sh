# The driver's own signals on the mock scenarios built for them (issue 13):
# each scenario gives its one problem finding, on the right GPU, with the
# exit code its severity means; the healthy node (a full fabric, 18 active
# NVLinks per GPU, far from its thermal limits) stays exit 0.
source "$(dirname "$0")/common.sh"

problems='[(f["id"], f["subject"].get("gpu_index")) for f in d["findings"] if f["severity"] in ("warning", "critical")]'

run healthy-h100x8 --json --sample 600ms
expect_rc 0
json_check "$problems == []" "healthy: no problem"
json_check 'all(g["fabric"]["state"] == "completed" and len(g["nvlinks"]) == 18 for g in d["gpus"])' "healthy: fabric and links are read"

run recovery-reboot --json --sample 600ms
expect_rc 2
json_check "$problems == [('gpu.recovery_action', 2)]" "recovery action reboot with every counter 0"
json_check 'd["gpus"][2]["ecc"]["errors"]["uncorrected"]["volatile"] == 0 and d["gpus"][2]["recovery"]["action"] == "node_reboot"'
json_check 'd["plan"][0]["finding_ids"] == ["gpu.recovery_action"] and any("reboot" in c for c in d["plan"][0]["commands"])' "the plan drains and reboots first"

run fabric-degraded --json --sample 600ms
expect_rc 1
json_check "[p[0] for p in $problems] == ['fabric.unhealthy']" "one GPU's fabric degraded: one finding"

run nvlink-down --json --sample 600ms
expect_rc 2
json_check "$problems == [('nvlink.link_down', 5)]" "one link down on GPU 5"

run power-brake --json --sample 600ms
expect_rc 1
json_check "$problems == [('clocks.power_brake', 3)]" "power brake for most of the window"
json_check '[f["evidence"] for f in d["findings"] if f["id"] == "clocks.power_brake"][0].startswith("held ")' "judged by the time it held"

run thermal-margin --json --sample 600ms
expect_rc 1
json_check "$problems == [('thermal.near_slowdown', 1)]" "3 C from the slowdown threshold"

run aggregate-dbe --json --sample 600ms
expect_rc 1
json_check "sorted($problems) == [('ecc.aggregate_uncorrectable', 4), ('ecc.remap_no_spare', 4)]" "lifetime DBEs with volatile 0"
json_check 'any("4312" in f["title"] for f in d["findings"] if f["id"] == "ecc.aggregate_uncorrectable")' "the number is in the finding"

# The table shows them too (no crash, the finding's words).
run recovery-reboot --sample 0
expect_out_contains "the driver asks for a node reboot"
