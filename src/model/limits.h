// Limits on what a node can hold, shared by the parsers of the command line
// and the collectors, so a corrupt value never drives a loop or allocation.
#pragma once

#include <cstdint>

namespace gt {

/// The most GPUs one node is taken to have: GPU indices are below this
/// (`free --gpus`), `--expect-gpus` at most this, and an NVML count above
/// it is a broken driver (only the first kMaxGpus are queried).
constexpr uint32_t kMaxGpus = 1024;

}  // namespace gt
