// The probe's child process (`gpu-triage __cuda-child ...`, started by
// probe_run.cc; never by a person). It alone loads libcuda and calls it, and
// reports each step on stdout as it enters and leaves it, one line each,
// so the parent knows the step a GPU is in when its deadline passes:
//   lib FILE | version N | count N | step NAME | ok NAME MS |
//   fail NAME CODE ERRNAME | fig KEY VALUE |
//   mismatch WHAT OFFSET EXPECTED GOT WRONG_WORDS | peer BUS BUS 0|1 | end
// Three modes: --node (cuDriverGetVersion, cuInit, cuDeviceGetCount),
// --bus ID (one GPU's steps), --peers ID,ID,... (cuDeviceCanAccessPeer for
// every ordered pair). Everything allocated is freed before `end`.
#pragma once

#include <string>
#include <vector>

namespace gt {

/// The words after "__cuda-child"; returns the child's exit status (0 when
/// it reported to the end, whatever the GPU said; 2 on bad arguments).
int run_cuda_child(const std::vector<std::string>& args);

/// The value the probe's kernel writes for thread `i` given `seed`, and the
/// pattern word at word offset `i`: the parent's and mock's shared truth.
inline unsigned int cuda_kernel_value(unsigned long long i, unsigned int seed) {
  return static_cast<unsigned int>(i) * 2654435761u + seed;
}
inline unsigned int cuda_pattern_word(unsigned long long i, unsigned int seed) {
  return static_cast<unsigned int>(i * 0x9E3779B97F4A7C15ull >> 32) ^ seed;
}

}  // namespace gt
