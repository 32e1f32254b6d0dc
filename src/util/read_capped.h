// Reading a whole file (or stdin) that the operator named, with a stated
// limit: a capture, a hosts file or a manifest is small, but /dev/zero, a
// FIFO or a wrong multi-gigabyte file must give a clear error, not eat the
// node's memory.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace gt {

/// Limits for the files gpu-triage reads whole (docs/design.md).
inline constexpr uint64_t kMaxCaptureBytes = 64ull << 20;    ///< --smi-xml (largest real: 122 KB)
inline constexpr uint64_t kMaxHostsFileBytes = 16ull << 20;  ///< --hosts-file
inline constexpr uint64_t kMaxManifestBytes = 1ull << 30;    ///< --manifest (~10 M files)
inline constexpr uint64_t kMaxProcFileBytes = 64ull << 20;   ///< one /proc or /sys file

/// Reads `path` ("-" is stdin) whole. Fails with the path and the reason
/// when it cannot be opened or read, or as soon as it holds more than
/// `max_bytes` ("... is larger than 64 MiB, the limit for <what>").
Result<std::string> read_file_capped(const std::string& path, uint64_t max_bytes,
                                     const std::string& what);

/// As above for an open descriptor (not closed); `name` is used in messages.
Result<std::string> read_fd_capped(int fd, const std::string& name, uint64_t max_bytes,
                                   const std::string& what);

}  // namespace gt
