// Byte counts for people, in one unit system everywhere: binary (KiB, MiB,
// GiB, TiB), as nvidia-smi prints GPU memory and `df -h` prints disks. Every
// human-facing size goes through here; JSON keeps exact byte counts.
#pragma once

#include <cstdint>
#include <string>

namespace gt {

/// "70.6 GiB", "512 MiB", "3.0 KiB", "100 B"; TiB from 1 TiB up.
std::string format_bytes(uint64_t bytes);

/// The same for a non-negative estimate (a mean, a projection); "?" when
/// it is not finite or negative.
std::string format_bytes(double bytes);

}  // namespace gt
