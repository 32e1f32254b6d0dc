// gpu-triage --host ... (or --smi-xml DIR, --reports DIR): many hosts, one
// line each, a summary, the fleet's own findings and, with --drift, what
// differs across them.
#pragma once

#include "cli/args.h"

namespace gt {

/// Whether the options name a fleet: hosts, a folder of captures or of
/// saved reports.
bool fleet_input(const Options& options);

/// Checks the fleet (hosts over ssh with bounded fan-out, each capture, or
/// each saved report), correlates Xids across hosts, prints the host lines,
/// the summary, the fleet findings and the drift (or one JSON object with
/// --json), and returns the worst host's exit code (at least "warning" when
/// there is a fleet finding).
int run_fleet(const Options& options);

}  // namespace gt
