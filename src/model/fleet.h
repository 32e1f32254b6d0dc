// The fleet's model: each host's outcome, the events shared by several hosts
// (fleet findings) and what differs across hosts (drift). fleet/ fills it,
// render/ prints it (render/fleet_render), cli/ chooses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/report.h"

namespace gt {

/// One host's outcome.
struct HostReport {
  std::string host;
  std::string via;  ///< "gpu-triage" (ran there), "nvidia-smi" (gathered, judged here),
                    ///< "capture", "report" (a saved --json), "ssh"
  std::optional<std::string> error;  ///< why there is no report (ssh's words, timeout)
  /// The host's report: judged here (a capture, a gathered host) or read
  /// back with report_from_json (a remote gpu-triage, a saved report).
  std::optional<Report> report;
};

/// OK, WARNING, CRITICAL or UNKNOWN (no report, or the report's own UNKNOWN).
std::string host_verdict(const HostReport& r);

/// A verdict word's rank for the fleet's exit code: OK 0 < WARNING 1 <
/// UNKNOWN 2 < CRITICAL 3 (another word ranks as OK).
int fleet_verdict_rank(const std::string& verdict);

/// The verdict words in rank order.
inline constexpr const char* kFleetVerdicts[] = {"OK", "WARNING", "UNKNOWN", "CRITICAL"};

/// Nagios exit code of a verdict word (0, 1, 3, 2), or with `npd` Node
/// Problem Detector's (0, 1, 2, 1).
int verdict_exit_code(const std::string& verdict, bool npd);

/// The same Xid at the same time on several hosts: one event of the fleet.
struct FleetFinding {
  std::string id;  ///< "fleet.xid_correlated.31"
  Severity severity = Severity::kWarning;
  std::string title;
  int code = 0;
  std::vector<std::string> hosts;
  int64_t first_unix_s = 0;
  int64_t last_unix_s = 0;
  uint64_t events = 0;  ///< kernel-log lines folded in (counts included)
};

/// One value of a property and the hosts that have it.
struct DriftValue {
  std::string value;
  std::vector<std::string> hosts;
};

/// A property whose known values differ across hosts.
struct DriftProperty {
  std::string property;            ///< "driver_version", "vbios_version"...
  std::optional<std::string> sku;  ///< the GPU model, for per-model properties
  /// The value most hosts have; null when two values tie for most.
  std::optional<DriftValue> majority;
  std::vector<DriftValue> others;          ///< the differing values, most hosts first
  std::vector<std::string> unknown_hosts;  ///< compared hosts that did not say
};

/// A host left out of the comparison, and why.
struct NotCompared {
  std::string host;
  std::string why;  ///< "UNKNOWN: ssh: ...", "UNKNOWN: x.json: report schema version 3, ..."
};

struct DriftReport {
  size_t hosts_compared = 0;
  std::vector<DriftProperty> differing;
  std::vector<NotCompared> not_compared;
};

}  // namespace gt
