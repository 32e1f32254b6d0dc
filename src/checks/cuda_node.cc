// Whether CUDA and NCCL will start: device nodes, compute mode, the job's
// CUDA build against the driver, /dev/shm and memlock.
#include "checks/checks.h"

namespace gt {

void check_cuda_node(const NodeSnapshot& s, std::vector<Finding>& out) {
  // SKELETON: issue 34 items 2-6 (branch cuda-node).
  (void)s;
  (void)out;
}

}  // namespace gt
