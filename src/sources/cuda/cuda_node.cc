#include "sources/cuda/cuda_node.h"

#include "sources/cuda/device_nodes.h"
#include "sources/cuda/nccl_limits.h"
#include "sources/cuda/runtime_build.h"

namespace gt {

void read_cuda_node(const FsRoot& root, const NodeSnapshot& snap, const ReadinessInputs& in,
                    CudaReadiness& r) {
  r.devices = read_device_nodes(root, snap);
  r.runtimes = read_runtime_builds(root, snap, in.python);
  r.dev_shm_bytes = read_dev_shm_bytes(root);
  r.limits = read_server_limits(root, snap, r.notes);
  r.rdma_devices = read_rdma_devices(root);
}

}  // namespace gt
