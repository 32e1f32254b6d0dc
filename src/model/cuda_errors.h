// The CUDA driver API's error codes that the probe meets, with what each
// means for an operator, as data (cuda.h's CUresult documentation). The
// driver's own name comes from cuGetErrorName when the library answers;
// this table gives the name when it does not, and the meaning always.
#pragma once

#include <string>

namespace gt {

struct CudaErrorInfo {
  int code;
  const char* name;     ///< "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
  const char* meaning;  ///< one line for an operator
};

/// The row for `code`, or nullptr when the table does not know it.
const CudaErrorInfo* find_cuda_error(int code);

/// "CUDA_ERROR_NO_DEVICE" or "CUDA error 4711" for a code not in the table.
std::string cuda_error_name(int code);

/// The meaning, or "an error this tool's table does not describe".
std::string cuda_error_meaning(int code);

}  // namespace gt
