// The driver release of one NVIDIA user-space library: from its file name
// ("libcuda.so.565.57.01", after links are followed), else from libcuda's
// contents. NVIDIA's libcuda carries its release in one string, the search
// path of its application profiles
// ("/usr/share/nvidia/nvidia-application-profiles-535.261.03-rc", read in
// Debian's libcuda1 535.261.03 and 550.163.01): the version is taken only
// between that marker and "-rc", never the first dotted number anywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

/// "565.57.01" from ("libcuda.so.565.57.01", "libcuda.so"); nullopt when the
/// name is not `base` + "." + a driver release (two or three dot-separated
/// groups of digits: "libcuda.so.1" has none).
std::optional<std::string> version_from_file_name(std::string_view file_name,
                                                  std::string_view base);

/// Whether `v` is a driver release as NVIDIA numbers them ("590.48.01", "470.82").
bool is_driver_release(std::string_view v);

/// The release inside a libcuda file's bytes, by the marker above; nullopt
/// when the marker is absent, kMalformed when what follows it does not parse.
Result<std::optional<std::string>> version_in_bytes(std::string_view bytes);

/// Scans at most kMaxLibraryScanBytes of the file at `node_path` under `root`.
inline constexpr uint64_t kMaxLibraryScanBytes = 256ull << 20;
Result<std::optional<std::string>> version_in_file(const FsRoot& root,
                                                   const std::string& node_path);

}  // namespace gt
