// The fleet's model: each host's outcome, the events shared by several hosts
// (fleet findings) and what differs across hosts (drift). fleet/ fills it,
// render/ prints it (render/fleet_render), cli/ chooses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fingerprint_change.h"
#include "model/report.h"

namespace gt {

/// How a host's outcome was had.
enum class HostVia : uint8_t {
  kGpuTriage,  ///< gpu-triage ran there (over ssh)
  kNvidiaSmi,  ///< gathered over ssh (nvidia-smi, /proc copies), judged here
  kCapture,    ///< a saved nvidia-smi -q -x capture, judged here
  kReport,     ///< a saved --json report
  kBundle,     ///< a gpu-triage bundle, replayed and judged here
  kSsh,        ///< ssh itself failed: no answer
};

inline constexpr std::array kHostVias{HostVia::kGpuTriage, HostVia::kNvidiaSmi, HostVia::kCapture,
                                      HostVia::kReport,    HostVia::kBundle,    HostVia::kSsh};

/// "gpu-triage", "nvidia-smi", "capture", "report", "bundle", "ssh".
const char* host_via_name(HostVia via);

/// One host's outcome.
struct HostReport {
  std::string host;
  HostVia via = HostVia::kSsh;
  std::optional<std::string> error;  ///< why there is no report (ssh's words, timeout)
  /// The host's report: judged here (a capture, a gathered host) or read
  /// back with report_from_json (a remote gpu-triage, a saved report).
  std::optional<Report> report;
};

/// The host's report's verdict; UNKNOWN when there is no report.
Verdict host_verdict(const HostReport& r);

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

/// Where a host stands against its own past (fleet --drift's second part).
enum class OwnPastState : uint8_t {
  kNotKnown,      ///< no fingerprint in its report, or no report: never "unchanged"
  kNoEarlierRun,  ///< a fingerprint, and no earlier run in its record
  kCompared,      ///< compared with its baseline (no changes: unchanged)
};

inline constexpr std::array kOwnPastStates{OwnPastState::kNotKnown, OwnPastState::kNoEarlierRun,
                                           OwnPastState::kCompared};

/// "not_known", "no_earlier_run", "compared".
const char* own_past_state_name(OwnPastState s);

/// One host's fingerprint against the baseline of its own record across
/// boots (the rule of the node's change checks: the last run of a previous
/// boot, else this boot's first run).
struct HostOwnPast {
  std::string host;
  OwnPastState state = OwnPastState::kNotKnown;
  std::optional<std::string> why;  ///< kNotKnown: "no record", "no report"
  /// kCompared: the baseline.
  std::optional<std::string> baseline_boot_id;
  bool baseline_this_boot = false;  ///< this boot's first run (no previous boot's)
  std::optional<int64_t> baseline_unix_s;
  std::optional<std::string> baseline_when;  ///< "the last run of boot 1d0c5e21 (... UTC)"
  std::vector<FingerprintChange> changes;    ///< kCompared: empty when unchanged
};

struct DriftReport {
  size_t hosts_compared = 0;
  std::vector<DriftProperty> differing;
  std::vector<NotCompared> not_compared;
  /// Each host against its own past, in the hosts' order.
  std::vector<HostOwnPast> own_past;
};

}  // namespace gt
