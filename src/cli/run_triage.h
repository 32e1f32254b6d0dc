// The main job: collect a snapshot of the node, render it, pick the exit code.
#pragma once

#include "checks/registry.h"
#include "cli/args.h"
#include "collect/collect.h"
#include "model/exit_code.h"
#include "model/report.h"

namespace gt {

/// Exit code for a judged report: Nagios (0 ok, 1 warning, 2 critical,
/// 3 unknown) or, with `npd`, Node Problem Detector's (0 ok, 1 problem,
/// 2 unknown).
int exit_code_for(const Report& report, bool npd);

/// The collection options of `options`, for the pipeline (src/collect/).
CollectInputs collect_inputs(const Options& options);

/// Collects a snapshot of the node (or --smi-xml's capture) and judges it
/// (findings, verdict, plan, exit code): everything run_triage does before
/// rendering, and nothing written (record_run is the caller's step). Never
/// blocks past the deadlines in `options`. Sets `abandoned_threads` when a
/// thread is still stuck inside NVML (a long-running caller should back off).
Report collect_report(const Options& options, bool& abandoned_threads);

/// Runs the whole job. Sets `abandoned_threads` when a thread is still stuck
/// inside NVML, in which case the caller must leave with _exit().
int run_triage(const Options& options, bool& abandoned_threads);

}  // namespace gt
