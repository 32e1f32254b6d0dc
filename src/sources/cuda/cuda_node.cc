#include "sources/cuda/cuda_node.h"

namespace gt {

void read_cuda_node(const FsRoot& root, const NodeSnapshot& snap, const ReadinessInputs& in,
                    CudaReadiness& r) {
  // SKELETON: issue 34 items 2-6 (branch cuda-node).
  (void)root;
  (void)snap;
  (void)in;
  (void)r;
}

}  // namespace gt
