// The NVIDIA kernel module exposes its version two ways.
// /sys/module/nvidia/version holds just "590.48.01\n" (the module's
// MODULE_VERSION, which sysfs shows for any loaded module declaring one). The
// /proc/driver/nvidia/version is a banner whose wording changed over time:
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.48.01  Release ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  ...
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.57.02  Tue Jul 13 ...
// so we take the first word that looks like a dotted version rather than a
// fixed column. Neither exists when the module is not loaded.
//
// The user-space driver ships as libnvidia-ml.so.<version> with a
// libnvidia-ml.so.1 symlink; resolving the symlink and reading the suffix
// gives the library's version even when nvmlInit fails.
#include "sources/procfs/driver_version.h"

#include <algorithm>
#include <cctype>

namespace gt {
namespace {

// "590.48.01", "565.57": two or more non-empty all-digit parts.
bool is_dotted_version(std::string_view s) {
  int parts = 0;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot - start);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (!digits) return false;
    ++parts;
    if (dot == std::string_view::npos) return parts >= 2;
    start = dot + 1;
  }
}

// The first dotted-version word of the "NVRM version:" line.
std::optional<std::string> version_from_banner(std::string_view banner) {
  size_t at = banner.find("NVRM version:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = banner.substr(at);
  line = line.substr(0, line.find('\n'));
  size_t i = 0;
  while (i < line.size()) {
    size_t start = line.find_first_not_of(" \t", i);
    if (start == std::string_view::npos) break;
    size_t end = std::min(line.find_first_of(" \t", start), line.size());
    std::string_view word = line.substr(start, end - start);
    if (is_dotted_version(word)) return std::string(word);
    i = end;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_kernel_module_version(const FsRoot& root) {
  std::optional<std::string> sys = root.read_optional_trimmed("/sys/module/nvidia/version");
  if (sys && is_dotted_version(*sys)) return sys;
  Result<std::string> banner = root.read("/proc/driver/nvidia/version");
  if (!banner) return std::nullopt;
  return version_from_banner(*banner);
}

std::optional<std::string> library_version_from_filename(std::string_view filename) {
  size_t slash = filename.rfind('/');
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  size_t so = filename.find(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  std::string_view suffix = filename.substr(so + 4);
  if (!is_dotted_version(suffix)) return std::nullopt;
  return std::string(suffix);
}

}  // namespace gt
