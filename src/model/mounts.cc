#include "model/mounts.h"

namespace gt {

const char* mount_problem_name(MountProblem p) {
  switch (p) {
    case MountProblem::kNetwork:
      return "network";
    case MountProblem::kNotMounted:
      return "not_mounted";
    case MountProblem::kOverlay:
      return "overlay";
    case MountProblem::kReadOnly:
      return "read_only";
    case MountProblem::kWrongDevice:
      return "wrong_device";
  }
  return "?";  // not an enumerator
}

}  // namespace gt
