// The judgement of the driver libraries a job would load
// (model/cuda_readiness.h) against the kernel module: what
// check_cuda_libraries (checks.h) and the NVML check share, so one cause
// gives one finding.
#pragma once

#include <optional>
#include <string>

#include "model/snapshot.h"

namespace gt {

/// Whether a new job's libcuda is from another release than the kernel
/// module and no forward-compatibility library newer than it: cuInit fails
/// with 803 (cuda.driver_mismatch). NVML's own library split
/// (driver.version_split) is then said in that finding, not apart.
bool new_job_driver_mismatch(const NodeSnapshot& s);

/// Whether a GPU supports CUDA forward compatibility, by its name: NVIDIA
/// data-center boards yes, GeForce/TITAN and RTX/Quadro workstation boards
/// no; null when the name does not say (an RTX "Server Edition": only select
/// NGC Server Ready SKUs do).
std::optional<bool> supports_forward_compat(const std::string& gpu_name);

}  // namespace gt
