// kernel_log.app_fault_many_gpus: Xid 13 or 31 on two or more GPUs within
// 60 s of each other in one boot is one job's bad memory access, not several
// bad GPUs (xid-catalog.md: NVIDIA's WORKFLOW_XID_31 "repeats on different
// GPUs -> CHECK_APP/CUDA"; NVSentinel's RepeatedXID31OnDifferentGPU -> NONE).
#pragma once

#include <map>
#include <vector>

#include "checks/kernel_log_groups.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

/// One node finding per cluster of Xid 13/31 groups on two or more GPUs
/// whose lines come within 60 s of each other (same boot, same clock); marks
/// those groups part_of_app_fault (their per-GPU findings become info and
/// are listed in the finding's joined_ids). Names the GPUs, the codes, and
/// the processes the lines give (pid/name of the 13/31 lines, else of an
/// Xid 43 on the same GPU within the window).
std::vector<Finding> app_fault_many_gpus(const NodeSnapshot& s,
                                         std::map<EventKey, EventGroup>& groups);

}  // namespace gt
