// What the checks are told beyond the snapshot: the command line's
// expectations and who runs them. Filled by collect's make_check_options,
// read by checks/ (judge).
#pragma once

#include <cstdint>
#include <optional>

namespace gt {

struct CheckOptions {
  std::optional<uint32_t> expect_gpus;  ///< --expect-gpus N
  double idle_memory_share = 0.10;      ///< "memory held while idle" above this share
  /// gpu-triage runs as root (the caller checks geteuid()): commands are
  /// written without "sudo".
  bool running_as_root = false;
};

}  // namespace gt
