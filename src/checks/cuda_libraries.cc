// Whether the driver libraries a job would load match the kernel module.
#include "checks/checks.h"

namespace gt {

void check_cuda_libraries(const NodeSnapshot& s, std::vector<Finding>& out) {
  // SKELETON: issue 34 item 1 (branch cuda-lib).
  (void)s;
  (void)out;
}

}  // namespace gt
