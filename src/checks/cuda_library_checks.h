// The judgement of the driver libraries a job would load
// (model/cuda_readiness.h) against the kernel module, weighed against what
// the running GPU processes have mapped (proof before prediction,
// docs/physics.md R3).
#pragma once

#include <optional>
#include <string>

#include "model/snapshot.h"

namespace gt {

/// Whether a GPU supports CUDA forward compatibility, by its name: NVIDIA
/// data-center boards yes, GeForce/TITAN and RTX/Quadro workstation boards
/// no; null when the name does not say (an RTX "Server Edition": only select
/// NGC Server Ready SKUs do).
std::optional<bool> supports_forward_compat(const std::string& gpu_name);

}  // namespace gt
