// gpu-triage fleet (or gpu-triage --host ..., --smi-xml DIR, --reports DIR):
// many hosts, one line each, a summary, the fleet's own findings and, with
// --drift, what differs across them.
#pragma once

#include "cli/commands.h"

namespace gt {

/// The fleet command: parses its options (cli/fleet_args.h), checks each
/// host (over ssh with bounded fan-out, each capture, or each saved report)
/// collecting the stages of its table entry, correlates Xids across hosts,
/// prints the host lines, the summary, the fleet findings and the drift (or
/// one JSON object with --json), and returns the worst host's exit code (at
/// least "warning" when there is a fleet finding).
int cmd_fleet(const Command& self, int argc, char** argv);

}  // namespace gt
