// --gpus as nvidia-smi -i takes it: "all", indices and ranges ("0,2,4-7"),
// UUIDs ("GPU-5b1c...") and PCI bus ids ("0000:19:00.0", NVML's
// "00000000:19:00.0", or "19:00.0" in domain 0), comma separated. Indices
// are checked before NVML is loaded; UUIDs and bus ids are resolved against
// the GPUs the node has.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.h"
#include "util/result.h"

namespace gt {

struct GpuSelector {
  std::vector<uint32_t> indices;  ///< sorted, unique
  std::vector<std::string> ids;   ///< UUIDs and bus ids, as written
};

/// Nullopt = all. Error (with the text quoted) on anything else.
Result<std::optional<GpuSelector>> parse_gpu_selector(const std::string& text);

/// The selected indices on `snap`'s GPUs (nullopt = all). An index the node
/// does not have is kept (the caller names it as missing); a UUID or bus id
/// that matches no GPU is an error naming it.
Result<std::optional<std::vector<uint32_t>>> resolve_gpu_selector(
    const std::optional<GpuSelector>& selector, const NodeSnapshot& snap);

}  // namespace gt
