// The parts of check_cuda_node (checks.h), one concept per file:
// device nodes and compute mode (cuda_node_checks.cc), the job's CUDA build
// against the driver (cuda_runtime_build.cc), NCCL's container limits
// (nccl_limit_checks.cc).
#pragma once

#include <vector>

#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

void check_cuda_runtime_builds(const NodeSnapshot& s, std::vector<Finding>& out);
void check_nccl_limits(const NodeSnapshot& s, std::vector<Finding>& out);

}  // namespace gt
