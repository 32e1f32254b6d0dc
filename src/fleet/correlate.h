// The same Xid at the same time on several hosts is one event of the
// fleet, not several bad GPUs: an Xid 13/31/43 storm from one distributed
// job, or NVLink errors (Xid 74, 144-150) from the fabric between hosts.
// Found from each host's typed report (kernel-log events with wall times);
// the hosts' own gpu.xid.N findings for those GPUs are marked as explained
// by the fleet finding (Finding::explained_by) and become info, and each
// host's verdict is recomputed from what remains by the checks' own rule
// (verdict_of).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/fleet_report.h"

namespace gt {

/// Events of one code on at least two hosts within `window_s` of the
/// first: one finding per such cluster.
inline constexpr int64_t kCorrelationWindowS = 60;
std::vector<FleetFinding> correlate_xids(const std::vector<HostReport>& hosts);

/// Marks the hosts' gpu.xid.N findings that a fleet finding explains
/// (severity info, explained_by the fleet id) and recomputes their
/// verdicts. A report's exit_code stays what its gpu-triage returned.
void apply_fleet_findings(const std::vector<FleetFinding>& found, std::vector<HostReport>& hosts);

}  // namespace gt
