#include "model/cuda_probe.h"

namespace gt {

const char* cuda_outcome_name(CudaOutcome o) {
  switch (o) {
    case CudaOutcome::kPassed:
      return "passed";
    case CudaOutcome::kFailed:
      return "failed";
    case CudaOutcome::kStuck:
      return "stuck";
    case CudaOutcome::kCrashed:
      return "crashed";
    case CudaOutcome::kSkipped:
      return "skipped";
    case CudaOutcome::kNotLoaded:
      return "not_loaded";
  }
  return "unknown";
}

}  // namespace gt
