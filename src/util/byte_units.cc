#include "util/byte_units.h"

#include <fmt/format.h>

#include <cmath>

namespace gt {

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "?";
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;
  if (bytes >= kTiB) return fmt::format("{:.1f} TiB", bytes / kTiB);
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.0f} MiB", bytes / kMiB);
  if (bytes >= kKiB) return fmt::format("{:.1f} KiB", bytes / kKiB);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_bytes(uint64_t bytes) { return format_bytes(static_cast<double>(bytes)); }

}  // namespace gt
