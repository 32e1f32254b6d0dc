// Drift across a fleet: what should be the same on every host (driver,
// library and CUDA versions, the kernel module, VBIOS per GPU model, GPU
// count and model, ECC, persistence and MIG modes, power limit, PCIe
// generation, the kernel) and is not. Read from each host's typed report,
// so it works the same over SSH, from captures and from saved reports. Unknown (null) values are
// never a difference: a host that does not say is listed as not telling, not as drifting.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_report.h"

namespace gt {

/// Compares every host with a report.
DriftReport find_drift(const std::vector<HostReport>& hosts);

}  // namespace gt
