// The libcuda a new job started here would load, for the `gpu-triage cuda`
// probe (issue 35) to dlopen: the same resolver as the readiness stage
// (library_search.h), for a context with no LD_LIBRARY_PATH.
#pragma once

#include <optional>
#include <string>

#include "util/fs_root.h"

namespace gt {

struct LibcudaPaths {
  std::string host_path;  ///< the file to dlopen on the machine running the tool
  std::string
      node_path;  ///< the same file as the node names it ("/usr/lib/.../libcuda.so.590.48.01")
  std::optional<std::string> version;  ///< "590.48.01"; null: unknown
};

/// Null when the loader's search finds no libcuda.so.1 under `root`.
std::optional<LibcudaPaths> host_path_of_libcuda_for_new_job(const FsRoot& root);

/// What the probe dlopens: `flag` (--cuda-lib) when given, else
/// GPU_TRIAGE_CUDA_LIB (the mock's seam), else the file the readiness
/// stage's search finds for a new job under `root`, else the bare soname
/// through dlopen's own search.
std::string libcuda_to_probe(const std::string& flag, const FsRoot& root);

}  // namespace gt
