// nvmlDeviceGetFieldValues: one call for several field ids, each element
// with its own status and its own value type (nvml-abi 8.1).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// Reads `ids` in one call. nullopt when the call is not exported, the GPU
/// is lost or the call itself failed (recorded); otherwise one element per
/// id, in order, each still to be judged with field_ok().
std::optional<std::vector<nvmlFieldValue_t>> read_fields(NvmlCaller& c, nvmlDevice_t dev,
                                                         const std::vector<unsigned>& ids);

/// Judges one element's own status: true on SUCCESS. NOT_SUPPORTED (and the
/// other "absent" codes) and INVALID_ARGUMENT are silent: a driver older than
/// the field id answers for an id past its NVML_FI_MAX, which is expected on
/// any driver older than the header that added it. Anything else is recorded
/// as "nvmlDeviceGetFieldValues(field N): NVML_ERROR_X".
bool field_ok(NvmlCaller& c, const nvmlFieldValue_t& v);

/// The value as an unsigned integer, decoded by its valueType; nullopt for a
/// negative or fractional value or an unknown type. Status is not looked at.
std::optional<uint64_t> field_uint(const nvmlFieldValue_t& v);
/// The value as a signed integer (nullopt past INT64_MAX or fractional).
std::optional<int64_t> field_int(const nvmlFieldValue_t& v);

}  // namespace gt
