// The driver libraries (libcuda, libnvidia-ml, libnvidia-ptxjitcompiler) a
// new job and each GPU process would load, resolved as the dynamic loader
// does: LD_LIBRARY_PATH, /etc/ld.so.cache, the default directories.
#pragma once

#include <chrono>
#include <optional>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// At most this many LD_LIBRARY_PATH entries of one process are searched
/// (real ones hold a few dozen); an entry longer than PATH_MAX is skipped
/// (open() refuses it: ENAMETOOLONG). Where a bound is reached it is said.
inline constexpr size_t kMaxLibraryPathDirs = 64;
inline constexpr size_t kMaxLibraryPathDirBytes = 4096;

/// Fills r.loaders. Past `deadline` (the command's --timeout) no further
/// process is resolved, and a note says how many were not.
void read_cuda_libraries(
    const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r,
    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace gt
