// NVSwitch fabric registration of a GPU (nvml-abi 8.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// What one of the three fabric structs said, version-neutral.
struct FabricRead {
  unsigned char state = 0;
  nvmlReturn_t status = NVML_SUCCESS;
  uint32_t clique_id = 0;
  unsigned char cluster_uuid[16] = {};
  std::optional<uint32_t> health_mask;          ///< v2 and v3
  std::optional<unsigned char> health_summary;  ///< v3
};

/// 16 raw bytes -> "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lowercase).
std::string uuid_text(const unsigned char bytes[16]);

/// Decodes a read; nullopt when the state is NOT_SUPPORTED (no fabric).
std::optional<FabricInfo> decode_fabric(const FabricRead& r);

/// GetGpuFabricInfoV with v3, then v2 (each on ARGUMENT_VERSION_MISMATCH),
/// then the unversioned call, into g.fabric. NOT_SUPPORTED leaves it null.
void read_fabric(NvmlCaller& c, nvmlDevice_t dev);

}  // namespace gt
