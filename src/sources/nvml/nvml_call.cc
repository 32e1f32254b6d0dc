#include "sources/nvml/nvml_call.h"

namespace gt {

bool nvml_absent(nvmlReturn_t r) {
  return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
         r == NVML_ERROR_DEPRECATED;
}

bool NvmlCaller::check(const char* symbol, nvmlReturn_t r) {
  if (r == NVML_SUCCESS) return true;
  if (nvml_absent(r)) return false;
  if (r == NVML_ERROR_GPU_IS_LOST) {
    lost_ = true;
    g_.status = GpuStatus::kLost;
    g_.status_detail = std::string(symbol) + " returned NVML_ERROR_GPU_IS_LOST";
    return false;
  }
  note_error(symbol, r);
  return false;
}

void NvmlCaller::note_error(const std::string& what, nvmlReturn_t r) {
  g_.errors.push_back(what + ": " + NvmlLibrary::return_name(r));
}

}  // namespace gt
