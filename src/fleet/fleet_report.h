// A host's outcome (model/fleet.h) as the fleet makes it, and the fleet's
// exit code: the worst host's. render/fleet_render prints them.
#pragma once

#include <string>
#include <vector>

#include "model/fleet.h"

namespace gt {

/// A host with its report.
HostReport host_report(const std::string& host, HostVia via, Report report);

/// An UNKNOWN host with `error`.
HostReport host_unknown(const std::string& host, HostVia via, std::string error);

/// The exit code of the worst host: CRITICAL > UNKNOWN > WARNING > OK, in
/// Nagios codes (2, 3, 1, 0) or with `npd` Node Problem Detector's (1, 2, 1, 0).
int fleet_exit_code(const std::vector<HostReport>& reports, bool npd);

}  // namespace gt
