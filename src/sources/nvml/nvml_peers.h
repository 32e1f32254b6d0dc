// Topology and peer-to-peer access between GPUs (nvml-abi: the two pair
// calls, both <= 11.0). Asked on each GPU's own thread, towards every other
// GPU, so a pair call that hangs is named like any other call and held to
// the same deadline.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// "single" for NVML_TOPOLOGY_SINGLE...; nullopt for a value NVML never
/// documented (reported unknown rather than guessed).
std::optional<std::string> topology_level_name(int level);

/// "ok" for NVML_P2P_STATUS_OK...; "unknown" for NVML_P2P_STATUS_UNKNOWN and
/// any undocumented value.
std::string p2p_status_name(int status);

/// The handle of GPU j when another worker already has it, else nullopt.
using KnownHandle = std::function<std::optional<nvmlDevice_t>(unsigned j)>;

/// Reads how GPU `self` (handle `dev`) reaches each GPU 0..count-1 but
/// itself; a peer's handle comes from `known` where it has one, else from
/// nvmlDeviceGetHandleByIndex. A peer whose handle cannot be had is left
/// out (its own thread reports why). nullopt when the calls are not
/// exported or no pair got any answer (NOT_SUPPORTED everywhere: unknown).
std::optional<std::vector<GpuPeer>> read_peers(NvmlCaller& c, nvmlDevice_t dev, unsigned self,
                                               unsigned count, const KnownHandle& known);

}  // namespace gt
