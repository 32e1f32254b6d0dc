// The catalogue of findings: one table, ids are a public interface (JSON,
// Prometheus labels, docs/checks.md, test names). Never rename an id; add a
// new one and retire the old.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_options.h"
#include "model/finding.h"
#include "model/report.h"

namespace gt {

struct CheckSpec {
  const char* id;      ///< "gpu.lost"; families ending in ".*" take a number ("gpu.xid.79")
  const char* family;  ///< "nvml", "gpu", "memory", "ecc", "pcie", "clocks", ...
  Severity severity;   ///< the default; some checks grade it (disk, Xid)
  const char* title;   ///< for docs/checks.md
};

/// Every finding id gpu-triage can produce.
const std::vector<CheckSpec>& check_catalogue();

/// The entry for `id` ("gpu.xid.79" matches "gpu.xid.*"); nullptr if none.
const CheckSpec* find_check(std::string_view id);

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
