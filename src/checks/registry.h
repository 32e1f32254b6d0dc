// The judgement: every check over a snapshot, then the joins and the plan.
// The catalogue of findings (one row per id) is checks/catalogue.h; its
// table is check_catalogue() in registry.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/catalogue.h"
#include "model/check_options.h"
#include "model/finding.h"
#include "model/report.h"

namespace gt {

/// Runs every check over `report.snapshot` and fills findings (worst
/// first), the verdict and the plan. First completes the identity of a GPU
/// NVML could not name (complete_gpu_identities), the one change it makes
/// to the snapshot; then joins findings about the same dying GPU.
void judge(Report& report, const CheckOptions& options);

/// The verdict of a report: its worst finding's severity (ok with none).
/// The one rule: judge() and the fleet's correlation both apply it.
Severity verdict_of(const std::vector<Finding>& findings);

/// No NVIDIA GPU on this machine at all: nothing on the PCI bus, no nvidia
/// module loaded, NVML not initialised (the library may be installed and
/// answer DRIVER_NOT_LOADED). A live collection only (a capture never is).
bool no_nvidia_gpu(const NodeSnapshot& s);

/// Nothing to judge: no NVIDIA GPU here, or a capture that could not be read.
bool nothing_to_judge(const NodeSnapshot& s);

}  // namespace gt
