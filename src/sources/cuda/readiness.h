// The readiness stage: what CUDA will meet on this node, read from files
// only (model/cuda_readiness.h). Runs after the GPUs, servers and host facts
// (it reads their processes and the module's version).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

struct ReadinessInputs {
  /// --python PATH: the interpreter of a job not running yet, whose CUDA
  /// stack is judged like a running process's.
  std::optional<std::string> python;
  /// The command's --timeout, from the stage's start: the per-process
  /// library resolution stops there (said).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// Fills a CudaReadiness for the snapshot's node under `root`.
CudaReadiness read_cuda_readiness(const FsRoot& root, const NodeSnapshot& snap,
                                  const ReadinessInputs& in);

}  // namespace gt
