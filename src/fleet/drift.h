// Drift across a fleet: what should be the same on every host (driver,
// library and CUDA versions, the kernel module, VBIOS per GPU model, GPU
// count and model, ECC, persistence and MIG modes, power limit, PCIe
// generation, the kernel) and is not. Read from each host's typed report,
// so it works the same over SSH, from captures and from saved reports. Unknown (null) values are
// never a difference: a host that does not say is listed as not telling, not as drifting.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_report.h"

namespace gt {

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

/// Compares every host with a report.
DriftReport find_drift(const std::vector<HostReport>& hosts);

/// "drift: ..." lines for the fleet text output.
void render_drift_text(const DriftReport& d, std::ostream& out);

nlohmann::ordered_json drift_to_json(const DriftReport& d);

}  // namespace gt
