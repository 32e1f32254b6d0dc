#include "model/cuda_probe_result.h"

#include <iterator>

namespace gt {

const char* cuda_outcome_name(CudaOutcome o) {
  switch (o) {
    case CudaOutcome::kPassed:
      return "passed";
    case CudaOutcome::kFailed:
      return "failed";
    case CudaOutcome::kStuck:
      return "stuck";
    case CudaOutcome::kLate:
      return "late";
    case CudaOutcome::kCrashed:
      return "crashed";
    case CudaOutcome::kSkipped:
      return "skipped";
    case CudaOutcome::kNotLoaded:
      return "not_loaded";
  }
  return "unknown";
}

std::optional<double> pcie_gb_per_s(uint32_t gen, uint32_t width) {
  // GT/s per lane x encoding / 8 bits: 8b/10b for 1-2, 128b/130b for 3-5,
  // FLIT (242/256 payload) for 6.
  static constexpr double kLane[] = {0, 0.25, 0.5, 0.9846, 1.9692, 3.9385, 7.5625};
  if (gen == 0 || gen >= std::size(kLane) || width == 0) return std::nullopt;
  return kLane[gen] * width;
}

}  // namespace gt
