// How loading and initializing NVML failed, as the checks tell the
// outcomes apart: no library, an unusable one, no answer in time, or one of
// the NVML returns the advice differs for. NVML's own return code and name
// stay data beside it (NvmlStatus::init_return_code, init_return_name);
// only renderers and readers turn the outcome into words.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gt {

enum class NvmlInitError {
  kLibraryNotFound,  ///< no library to load (over ssh: no nvidia-smi)
  kLibraryUnusable,  ///< it loaded but is not a usable NVML
  kTimeout,          ///< init (or nvidia-smi) did not answer before the deadline
  kVersionMismatch,  ///< NVML_ERROR_LIB_RM_VERSION_MISMATCH
  kDriverNotLoaded,  ///< NVML_ERROR_DRIVER_NOT_LOADED
  kNoPermission,     ///< NVML_ERROR_NO_PERMISSION
  kGpuNotFound,      ///< NVML_ERROR_GPU_NOT_FOUND
  kOtherNvmlError,   ///< any other return: init_return_name names it
};
inline constexpr std::array kNvmlInitErrors{
    NvmlInitError::kLibraryNotFound, NvmlInitError::kLibraryUnusable, NvmlInitError::kTimeout,
    NvmlInitError::kVersionMismatch, NvmlInitError::kDriverNotLoaded, NvmlInitError::kNoPermission,
    NvmlInitError::kGpuNotFound,     NvmlInitError::kOtherNvmlError};

/// The word docs/json.md gives nvml.init_error: "LIBRARY_NOT_FOUND",
/// "LIBRARY_UNUSABLE", "TIMEOUT", NVML's return name for the four returns
/// told apart ("NVML_ERROR_LIB_RM_VERSION_MISMATCH"...), and
/// "NVML_ERROR_OTHER" for kOtherNvmlError (whose JSON word is NVML's own
/// return name, init_return_name, instead).
const char* nvml_init_error_name(NvmlInitError e);

/// The inverse of nvml_init_error_name; nullopt for any other word.
std::optional<NvmlInitError> parse_nvml_init_error(std::string_view word);

/// Whether NVML itself returned the error (init_return_code and
/// init_return_name are then NVML's), not the loader or the deadline.
bool nvml_returned(NvmlInitError e);

/// nvml.init_error's word: NVML's return name when NVML returned the error
/// (`return_name`, NvmlStatus::init_return_name), else the outcome's name.
std::string nvml_init_error_word(NvmlInitError e, const std::optional<std::string>& return_name);

}  // namespace gt
