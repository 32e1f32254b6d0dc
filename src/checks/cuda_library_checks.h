// The judgement of the driver libraries a job would load
// (model/cuda_readiness.h) against the kernel module, weighed against what
// the running GPU processes have mapped (proof before prediction,
// docs/physics.md R3).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"

namespace gt {

/// Whether a GPU supports CUDA forward compatibility, by its name: NVIDIA
/// data-center boards yes, GeForce/TITAN and RTX/Quadro workstation boards
/// no; null when the name does not say (an RTX "Server Edition": only select
/// NGC Server Ready SKUs do).
std::optional<bool> supports_forward_compat(const std::string& gpu_name);

/// The cuInit error a prediction of these checks names, by its catalogue
/// row's event (803: cuda.driver_mismatch, 804: cuda.compat_unsupported);
/// null for any other finding (the probe's proof of that error joins it).
std::optional<int> predicted_cuinit_error(std::string_view finding_id);

/// The libcuda.so.1 a new job loads (the readiness stage's first context),
/// when its file is known; nullptr otherwise.
const ResolvedLibrary* new_job_libcuda(const CudaReadiness& r);

/// The running processes that map a driver library deleted on disk since
/// they started (/proc/PID/maps "(deleted)"), in the readiness stage's order:
/// the one reading the NVML check and driver.libraries_replaced share.
std::vector<const ProcessMappings*> on_deleted_libraries(const CudaReadiness& r);

}  // namespace gt
