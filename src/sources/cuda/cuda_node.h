// What else CUDA and NCCL meet on this node: the device nodes and the uvm
// module, the CUDA release each GPU process's stack was built for, /dev/shm
// and the processes' memlock limits.
#pragma once

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "sources/cuda/readiness.h"
#include "util/fs_root.h"

namespace gt {

/// Fills r.devices, r.runtimes, r.dev_shm_bytes and r.limits.
void read_cuda_node(const FsRoot& root, const NodeSnapshot& snap, const ReadinessInputs& in,
                    CudaReadiness& r);

}  // namespace gt
