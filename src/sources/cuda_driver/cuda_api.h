// The driver library, dlopened (never linked): every function of
// cuda_types.h resolved by its exported name, or an error naming the first
// one missing. Only the probe's child process opens it (cuda_child.cc):
// CUDA is not fork-safe and can block forever inside the driver.
#pragma once

#include <string>
#include <vector>

#include "sources/cuda_driver/cuda_types.h"
#include "util/result.h"

namespace gt {

struct CudaApi {
  void* handle = nullptr;
  std::string file;  ///< the file dlopen mapped (dladdr), links followed
#define GT_CUDA_FIELD(field, symbol, params) CUresult(*field) params = nullptr;
  GT_CUDA_FUNCTIONS(GT_CUDA_FIELD)
#undef GT_CUDA_FIELD
};

/// The exported names the probe needs, in the table's order.
std::vector<std::string> cuda_symbol_names();

/// dlopen(`library`) (a bare soname goes through dlopen's own search) and
/// every symbol; kNotFound with dlerror's words, or kLibraryError naming
/// the missing symbols.
Result<CudaApi> open_cuda_api(const std::string& library);

/// cuGetErrorName's answer, else the table's name (model/cuda_errors.h).
std::string cuda_error_name_from(const CudaApi& api, CUresult code);

}  // namespace gt
