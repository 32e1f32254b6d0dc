#include "model/nvml_init.h"

namespace gt {

const char* nvml_init_error_name(NvmlInitError e) {
  switch (e) {
    case NvmlInitError::kLibraryNotFound:
      return "LIBRARY_NOT_FOUND";
    case NvmlInitError::kLibraryUnusable:
      return "LIBRARY_UNUSABLE";
    case NvmlInitError::kTimeout:
      return "TIMEOUT";
    case NvmlInitError::kVersionMismatch:
      return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case NvmlInitError::kDriverNotLoaded:
      return "NVML_ERROR_DRIVER_NOT_LOADED";
    case NvmlInitError::kNoPermission:
      return "NVML_ERROR_NO_PERMISSION";
    case NvmlInitError::kGpuNotFound:
      return "NVML_ERROR_GPU_NOT_FOUND";
    case NvmlInitError::kOtherNvmlError:
      return "NVML_ERROR_OTHER";
  }
  return "NVML_ERROR_OTHER";
}

std::optional<NvmlInitError> parse_nvml_init_error(std::string_view word) {
  for (int i = 0; i <= static_cast<int>(NvmlInitError::kOtherNvmlError); ++i) {
    const auto e = static_cast<NvmlInitError>(i);
    if (word == nvml_init_error_name(e)) return e;
  }
  return std::nullopt;
}

bool nvml_returned(NvmlInitError e) {
  return e != NvmlInitError::kLibraryNotFound && e != NvmlInitError::kLibraryUnusable &&
         e != NvmlInitError::kTimeout;
}

std::string nvml_init_error_word(NvmlInitError e, const std::optional<std::string>& return_name) {
  return return_name ? *return_name : nvml_init_error_name(e);
}

}  // namespace gt
