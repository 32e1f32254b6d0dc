// Drift across a fleet: what should be the same on every host (driver,
// library and CUDA versions, the kernel module, VBIOS per GPU model, GPU
// count and model, ECC, persistence and MIG modes, power limit, PCIe
// generation, the kernel) and is not. Read from each host's typed report,
// so it works the same over SSH, from captures and from saved reports. Unknown (null) values are
// never a difference: a host that does not say is listed as not telling, not as drifting.
// Second part: each host against its own past, from the record across boots
// and the fingerprint its report carries (when gpu-triage itself made it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_report.h"

namespace gt {

/// Compares every host with a report, and each host with its own past.
DriftReport find_drift(const std::vector<HostReport>& hosts);

/// The host's fingerprint against its own record's baseline (the node's
/// change checks' rule and comparison, checks/fingerprint_compare.h): not
/// known without a fingerprint in its report, never "unchanged".
HostOwnPast own_past_of(const HostReport& h);

}  // namespace gt
