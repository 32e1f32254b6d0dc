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
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fleet/fleet_report.h"

namespace gt {

struct FleetFinding {
  std::string id;  ///< "fleet.xid_correlated.31"
  std::string severity = "warning";
  std::string title;
  int code = 0;
  std::vector<std::string> hosts;
  int64_t first_unix_s = 0;
  int64_t last_unix_s = 0;
  uint64_t events = 0;  ///< kernel-log lines folded in (counts included)
};

/// Events of one code on at least two hosts within `window_s` of the
/// first: one finding per such cluster.
inline constexpr int64_t kCorrelationWindowS = 60;
std::vector<FleetFinding> correlate_xids(const std::vector<HostReport>& hosts);

/// Marks the hosts' gpu.xid.N findings that a fleet finding explains
/// (severity info, explained_by the fleet id) and recomputes their
/// verdicts. A report's exit_code stays what its gpu-triage returned.
void apply_fleet_findings(const std::vector<FleetFinding>& found, std::vector<HostReport>& hosts);

nlohmann::ordered_json fleet_findings_json(const std::vector<FleetFinding>& found);

}  // namespace gt
