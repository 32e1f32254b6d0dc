// gpu-triage data: is the job's output intact, and which samples must be redone?
#pragma once

#include "cli/commands.h"

namespace gt {

/// Runs `gpu-triage data DIR... [options]`; argv[0] is "data". Returns the
/// exit code: 0 all intact, 1 resumable problems (bad, missing, duplicated
/// or stale files, not enough space, manifest differences), 2 a directory
/// or file that could not be read, 3 nothing to check, 64 bad usage.
int cmd_data(const Command& self, int argc, char** argv);

}  // namespace gt
