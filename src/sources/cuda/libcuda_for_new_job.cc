#include "sources/cuda/libcuda_for_new_job.h"

#include <cstdlib>

#include "sources/cuda/library_search.h"

namespace gt {

std::optional<LibcudaPaths> host_path_of_libcuda_for_new_job(const FsRoot& root) {
  const ResolvedLibrary lib = resolve_library(root, read_loader_files(root), {}, "libcuda.so.1");
  if (!lib.file) return std::nullopt;
  Result<std::string> host = root.resolve(*lib.file);
  if (!host) return std::nullopt;
  return LibcudaPaths{*host, *lib.file, lib.version};
}

std::string libcuda_to_probe(const std::string& flag, const FsRoot& root) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("GPU_TRIAGE_CUDA_LIB"); env && *env) return env;
  if (std::optional<LibcudaPaths> p = host_path_of_libcuda_for_new_job(root)) return p->host_path;
  return "libcuda.so.1";
}

}  // namespace gt
