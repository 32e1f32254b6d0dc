#include "sources/cuda/libcuda_for_new_job.h"

#include "sources/cuda/library_search.h"

namespace gt {

std::optional<LibcudaPaths> host_path_of_libcuda_for_new_job(const FsRoot& root) {
  const ResolvedLibrary lib = resolve_library(root, read_loader_files(root), {}, "libcuda.so.1");
  if (!lib.file) return std::nullopt;
  Result<std::string> host = root.resolve(*lib.file);
  if (!host) return std::nullopt;
  return LibcudaPaths{*host, *lib.file, lib.version};
}

}  // namespace gt
