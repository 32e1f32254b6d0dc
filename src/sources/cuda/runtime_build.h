// What CUDA release each GPU server's stack (and --python PATH's) was
// built for, read from files only (nothing is run or imported):
//   1. torch's torch/version.py (`cuda = '12.8'`, `__version__`);
//   2. the nvidia-cuda-runtime wheel: site-packages/
//      nvidia_cuda_runtime_cu12-12.8.57.dist-info;
//   3. a mapped libcudart.so.X.Y.Z (the toolkit's, by file name);
//   4. CuPy's and JAX's CUDA wheels (cupy_cuda12x-*.dist-info,
//      jax_cuda12_plugin-*, jax_cuda12_pjrt-*), which name only the major:
//      judged as X.0, the least release of it (a note says so);
//   5. a conda cudatoolkit: PREFIX/conda-meta/cudatoolkit-X.Y.Z-*.json.
// A running server: the first of its members whose /proc/PID/maps can be
// read; the site-packages directory is the one holding a mapped
// torch/lib/libtorch_cuda.so or nvidia/cuda_runtime/lib/libcudart.so.*,
// else (nothing mapped yet) the one its interpreter (/proc/PID/exe, with
// PYTHONPATH and HOME from its environment) imports torch from
// (sources/cuda/python_search_path.h). --python PATH: that interpreter's
// search path without an environment (no PYTHONPATH, no user site); its
// conda PREFIX is PATH's directory's parent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// One entry per GPU server with a readable member, and one for `python`.
std::vector<CudaRuntimeBuild> read_runtime_builds(const FsRoot& root, const NodeSnapshot& snap,
                                                  const std::optional<std::string>& python);

/// The CUDA release in torch's version.py text (`cuda = '12.8'`, also
/// `cuda: Optional[str] = '12.8'`); "" for `cuda = None` (a CPU build);
/// null when no such line parses.
std::optional<std::string> torch_cuda_of(const std::string& version_py);

}  // namespace gt
