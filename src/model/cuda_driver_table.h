// NVIDIA's published driver requirements per CUDA release, as data:
// the CUDA Toolkit Release Notes' table "CUDA Toolkit and Corresponding
// Driver Versions" (Linux x86_64, the GA release of each minor) and the
// CUDA Compatibility guide's "Minor Version Compatibility" table (the
// minimum driver a whole major family runs on with a limited feature set).
// docs/checks.md "cuda.runtime_too_new" cites both.
#pragma once

#include <optional>
#include <string_view>

namespace gt {

/// A CUDA release as "major.minor".
struct CudaRelease {
  int major = 0;
  int minor = 0;
  auto operator<=>(const CudaRelease&) const = default;
};

/// "12.8" (or "12.8.57", the rest ignored) -> {12, 8}; null when it does not
/// start with two dot-separated numbers.
std::optional<CudaRelease> parse_cuda_release(std::string_view text);

/// The Linux driver the release's toolkit needs ("570.26" for 12.8); null
/// for a release the table does not list.
std::optional<std::string_view> toolkit_driver_for(CudaRelease r);

/// The driver a whole major family runs on under minor-version
/// compatibility ("525.60.13" for 12.x); null for a major before 11.
std::optional<std::string_view> minor_compat_driver_for(int major);

}  // namespace gt
