// The command lines `gpu-triage free` prints as advice ("stop the whole
// server with `gpu-triage free --pid 3141 --whole-server`"): written in the
// form its parser takes, so an operator can run each as printed
// (tests/e2e/free_hints_are_accepted.sh runs them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "free/free_plan.h"

namespace gt {

/// "0,2,5-6": indices as --gpus takes them (no blanks).
std::string gpus_arg(const std::vector<uint32_t>& indices);

/// "`gpu-triage free ARGS`", ARGS joined by blanks.
std::string free_command(const std::vector<std::string>& args);

/// The operator's selection and stop path as arguments: "--gpus 0-1",
/// "--pid 3141", "--whole-server", "--via-owner", "--signal" (not
/// --include-busy, --sample, --grace, --yes or --json).
std::vector<std::string> selection_args(const FreeOptions& o);

/// "`gpu-triage free SELECTION EXTRA`": the operator's command with more
/// arguments (one already in the selection is not repeated).
std::string free_command_adding(const FreeOptions& o, const std::vector<std::string>& extra);

/// "`gpu-triage free --pid PID --whole-server`": the stop of the whole
/// server (or supervisor) `pid` reaches.
std::string whole_server_command(uint32_t pid);

}  // namespace gt
