// gpu-triage --host ...: many hosts over ssh, one line each and a summary.
#pragma once

#include "cli/args.h"

namespace gt {

/// Checks options.hosts with bounded fan-out, prints the host lines and the
/// summary (or the JSON array with --json), and returns the worst host's
/// exit code.
int run_fleet(const Options& options);

}  // namespace gt
