#include "model/cuda_driver_table.h"

#include <array>
#include <charconv>

namespace gt {
namespace {

struct ToolkitDriver {
  CudaRelease release;
  std::string_view driver;
};

// CUDA Toolkit Release Notes, "CUDA Toolkit and Corresponding Driver
// Versions", Linux x86_64, each minor's GA row.
constexpr std::array<ToolkitDriver, 19> kToolkitDrivers = {{
    {{11, 0}, "450.51.05"}, {{11, 1}, "455.23"},    {{11, 2}, "460.27.03"}, {{11, 3}, "465.19.01"},
    {{11, 4}, "470.42.01"}, {{11, 5}, "495.29.05"}, {{11, 6}, "510.39.01"}, {{11, 7}, "515.43.04"},
    {{11, 8}, "520.61.05"}, {{12, 0}, "525.60.13"}, {{12, 1}, "530.30.02"}, {{12, 2}, "535.54.03"},
    {{12, 3}, "545.23.06"}, {{12, 4}, "550.54.14"}, {{12, 5}, "555.42.02"}, {{12, 6}, "560.28.03"},
    {{12, 8}, "570.26"},    {{12, 9}, "575.51.03"}, {{13, 0}, "580.65.06"},
}};

std::optional<int> leading_number(std::string_view& s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data() || v < 0) return std::nullopt;
  s.remove_prefix(p - s.data());
  return v;
}

}  // namespace

std::optional<CudaRelease> parse_cuda_release(std::string_view text) {
  std::optional<int> major = leading_number(text);
  if (!major || text.empty() || text.front() != '.') return std::nullopt;
  text.remove_prefix(1);
  std::optional<int> minor = leading_number(text);
  if (!minor || *major > 99 || *minor > 99) return std::nullopt;
  if (!text.empty() && text.front() != '.') return std::nullopt;
  return CudaRelease{*major, *minor};
}

std::optional<std::string_view> toolkit_driver_for(CudaRelease r) {
  for (const ToolkitDriver& t : kToolkitDrivers)
    if (t.release == r) return t.driver;
  return std::nullopt;
}

std::optional<std::string_view> minor_compat_driver_for(int major) {
  // CUDA Compatibility, "Minor Version Compatibility", table 1.
  switch (major) {
    case 11:
      return "450.80.02";
    case 12:
      return "525.60.13";
    case 13:
      return "580.65.06";
  }
  return std::nullopt;
}

}  // namespace gt
