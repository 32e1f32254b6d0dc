#include "model/nvml_init.h"

#include "model/enum_words.h"

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
  return "?";
}

std::optional<NvmlInitError> parse_nvml_init_error(std::string_view word) {
  return enum_of_word(kNvmlInitErrors, nvml_init_error_name, word);
}

bool nvml_returned(NvmlInitError e) {
  return e != NvmlInitError::kLibraryNotFound && e != NvmlInitError::kLibraryUnusable &&
         e != NvmlInitError::kTimeout;
}

std::string nvml_init_error_word(NvmlInitError e, const std::optional<std::string>& return_name) {
  return return_name ? *return_name : nvml_init_error_name(e);
}

}  // namespace gt
