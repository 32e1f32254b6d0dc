// The main job: collect a snapshot of the node, render it, pick the exit code.
#pragma once

#include "cli/args.h"
#include "model/exit_code.h"
#include "model/snapshot.h"

namespace gt {

/// Exit code for a collected snapshot (the foundation's rule: critical when
/// NVML is unusable or any GPU is lost, hung or inaccessible).
ExitCode exit_code_for(const NodeSnapshot& snap);

/// Runs the whole job. Sets `abandoned_threads` when a thread is still stuck
/// inside NVML, in which case the caller must leave with _exit().
ExitCode run_triage(const Options& options, bool& abandoned_threads);

}  // namespace gt
