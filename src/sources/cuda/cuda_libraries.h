// The driver libraries (libcuda, libnvidia-ml, libnvidia-ptxjitcompiler) a
// new job and each GPU process would load, resolved as the dynamic loader
// does: LD_LIBRARY_PATH, /etc/ld.so.cache, the default directories.
#pragma once

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Fills r.loaders.
void read_cuda_libraries(const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r);

}  // namespace gt
