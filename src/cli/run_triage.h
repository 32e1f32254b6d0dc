// The main job: collect a snapshot of the node, judge it, record it, render
// it, pick the exit code.
#pragma once

#include <memory>
#include <optional>

#include "checks/registry.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "collect/collect.h"
#include "model/exit_code.h"
#include "model/report.h"

namespace gt {

/// The collection options of `options`, for the pipeline (src/collect/).
CollectInputs collect_inputs(const Options& options);

/// The judge step every command that judges takes: a failed NVML explained
/// in words, the checks (make_check_options), the exit code of the verdict
/// (verdict_exit_code: Nagios's, or with `npd` Node Problem Detector's).
void judge_report(Report& report, std::optional<uint32_t> expect_gpus, bool npd);

/// Collects `stages` of the node (or --smi-xml's capture) and judges it
/// (findings, verdict, plan, exit code): everything the triage command does
/// before rendering, and nothing written (record_run is the caller's step).
/// --no-kernel-log takes the kernel log out of `stages`. Never blocks past
/// the deadlines in `options`. Sets `abandoned_threads` when a thread is
/// still stuck inside NVML (a long-running caller should back off).
/// With `read_log`, every file the node's collectors read is logged there
/// (gpu-triage bundle copies them).
Report collect_report(const Options& options, Stages stages, bool& abandoned_threads,
                      std::shared_ptr<ReadLog> read_log = nullptr);

/// The triage command (the table's default entry): parses gpu-triage's
/// options, collects, judges, records, renders. A thread stuck inside NVML
/// makes it leave with _exit() (docs/design.md, "Never hang").
int cmd_triage(const Command& self, int argc, char** argv);

}  // namespace gt
