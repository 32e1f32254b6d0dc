#include "sources/cuda/readiness.h"

#include "sources/cuda/cuda_libraries.h"
#include "sources/cuda/cuda_node.h"
#include "sources/cuda/mapped_libraries.h"

namespace gt {

CudaReadiness read_cuda_readiness(const FsRoot& root, const NodeSnapshot& snap,
                                  const ReadinessInputs& in) {
  CudaReadiness r;
  read_cuda_libraries(root, snap, r, in.deadline);
  read_mapped_libraries(root, snap, r);
  read_cuda_node(root, snap, in, r);
  return r;
}

}  // namespace gt
