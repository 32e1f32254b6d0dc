# A wedged driver: a python3 task sleeps in state D inside nvidia.ko waiting
# for the global RM API lock, so NVML's init never returns (docs/physics.md
# R7: one lock for every GPU). One critical driver.wedged finding names the
# PID, its comm and frame, carries NVML's timeout; one plan step
# drains, collects the bug report and reboots. The rsync in D on NFS beside
# it is not the driver's. A healthy node has no such finding.
source "$(dirname "$0")/common.sh"

run wedged-driver --timeout 1s --sample 0 --json
expect_rc 2
json_check '[(t["pid"], t["tid"], t["comm"]) for t in d["stuck_nvidia_tasks"]] == [(4242, None, "python3")]' \
  "only the python3 task is stuck in nvidia code (not the rsync on NFS)"
json_check 'd["stuck_nvidia_tasks"][0]["nvidia_frame"] == "os_acquire_rwlock_write+0x3c/0x70 [nvidia]"'
json_check 'd["stuck_nvidia_tasks"][0]["wchan"] == "os_acquire_rwlock_write" and d["stuck_nvidia_tasks"][0]["sleeping_s"] is None'
json_check 'len([f for f in d["findings"] if f["id"] == "driver.wedged"]) == 1' "one driver.wedged finding"
json_check '[f for f in d["findings"] if f["id"] == "driver.wedged"][0]["severity"] == "critical"'
W='[f for f in d["findings"] if f["id"] == "driver.wedged"][0]'
json_check "'python3 (PID 4242) in os_acquire_rwlock_write+0x3c/0x70 [nvidia]' in $W['title']" "names the PID, comm and frame"
json_check "'nvml.unresponsive' in $W['joined_ids']" "joined with NVML's timeout"
json_check "'NVML did not answer within the timeout: stuck in nvmlInit' in $W['title']" "carries NVML's title"
json_check 'not any(f["id"] == "nvml.unresponsive" for f in d["findings"])' "no separate nvml.unresponsive"
json_check 'd["gpus"] == []' "no GPU answers: the lock is global"
P='[p for p in d["plan"] if "driver.wedged" in p["finding_ids"]]'
json_check "len($P) == 1" "one plan step for it"
json_check "'Drain the node' in $P[0]['text'] and 'nvidia-bug-report.sh' in $P[0]['text']" "the step drains, bug report first"
# The bounded bundle first (issue 37: evidence before the reboot), then NVIDIA's bug report.
json_check "$P[0]['commands'][0].replace('sudo ', '').startswith('gpu-triage bundle')" "the bundle first"
json_check "$P[0]['commands'][1].endswith('nvidia-bug-report.sh --safe-mode --extra-system-data   # before the reboot')" "then the bug report"
json_check "$P[0]['commands'][-1] == '${SUDO}reboot   # after draining the node'" "reboot last"
json_check "sum(c.split('#')[0].strip().endswith('reboot') for c in $P[0]['commands']) == 1" "one reboot"

# The table says it too.
run wedged-driver --timeout 1s --sample 0
expect_rc 2
expect_out_contains "driver is wedged"
expect_out_contains "PID 4242"

run healthy-h100x8 --sample 0 --json
expect_rc 0
json_check 'd["stuck_nvidia_tasks"] == []' "healthy: /proc scanned, nothing stuck"
json_check 'not any(f["id"] == "driver.wedged" for f in d["findings"])' "healthy: no driver.wedged"
