#include "sources/cuda/cuda_libraries.h"

namespace gt {

void read_cuda_libraries(const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r) {
  // SKELETON: issue 34 item 1 (branch cuda-lib).
  (void)root;
  (void)snap;
  (void)r;
}

}  // namespace gt
