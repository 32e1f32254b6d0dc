#include "sources/cuda_driver/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "model/cuda_errors.h"
#include "util/real_path.h"

namespace gt {

std::vector<std::string> cuda_symbol_names() {
  std::vector<std::string> names;
#define GT_CUDA_NAME(field, symbol, params) names.emplace_back(symbol);
  GT_CUDA_FUNCTIONS(GT_CUDA_NAME)
#undef GT_CUDA_NAME
  return names;
}

Result<CudaApi> open_cuda_api(const std::string& library) {
  CudaApi api;
  api.handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.handle == nullptr) {
    const char* why = ::dlerror();
    return Error{ErrorKind::kNotFound,
                 "cannot load " + library + ": " + (why != nullptr ? why : "dlopen failed")};
  }
  std::string missing;
  auto resolve = [&](auto& field, const char* symbol) {
    field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(::dlsym(api.handle, symbol));
    if (field == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  };
#define GT_CUDA_RESOLVE(field, symbol, params) resolve(api.field, symbol);
  GT_CUDA_FUNCTIONS(GT_CUDA_RESOLVE)
#undef GT_CUDA_RESOLVE
  Dl_info info{};
  if (api.cuInit != nullptr && ::dladdr(reinterpret_cast<void*>(api.cuInit), &info) != 0 &&
      info.dli_fname != nullptr)
    api.file = real_path(info.dli_fname).value_or(info.dli_fname);
  if (api.file.empty()) api.file = library;
  if (!missing.empty())
    return Error{ErrorKind::kLibraryError,
                 api.file + " does not export " + missing + " (not a usable libcuda)"};
  return api;
}

std::string cuda_error_name_from(const CudaApi& api, CUresult code) {
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr && api.cuGetErrorName(code, &name) == 0 && name != nullptr)
    return name;
  return cuda_error_name(code);
}

}  // namespace gt
