#include "sources/cuda/library_version.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "util/errno_error.h"

namespace gt {
namespace {

constexpr std::string_view kProfileMarker = "/usr/share/nvidia/nvidia-application-profiles-";
constexpr std::string_view kProfileEnd = "-rc";
constexpr size_t kMaxReleaseChars = 24;  // "NNNN.NNNN.NNNN" and then some
constexpr size_t kScanChunkBytes = 1 << 20;

bool release_digits(std::string_view s) {
  return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

bool is_driver_release(std::string_view v) {
  int groups = 0;
  while (true) {
    const size_t dot = v.find('.');
    if (!release_digits(v.substr(0, dot))) return false;
    ++groups;
    if (dot == std::string_view::npos) break;
    v = v.substr(dot + 1);
  }
  return groups == 2 || groups == 3;
}

std::optional<std::string> version_from_file_name(std::string_view file_name,
                                                  std::string_view base) {
  if (file_name.size() <= base.size() + 1 || !file_name.starts_with(base) ||
      file_name[base.size()] != '.') {
    return std::nullopt;
  }
  const std::string_view v = file_name.substr(base.size() + 1);
  if (!is_driver_release(v)) return std::nullopt;
  return std::string(v);
}

Result<std::optional<std::string>> version_in_bytes(std::string_view bytes) {
  const size_t at = bytes.find(kProfileMarker);
  if (at == std::string_view::npos) return std::optional<std::string>{};
  const std::string_view rest =
      bytes.substr(at + kProfileMarker.size(), kMaxReleaseChars + kProfileEnd.size());
  const size_t end = rest.find(kProfileEnd);
  const std::string_view v = rest.substr(0, end);
  if (end == std::string_view::npos || !is_driver_release(v)) {
    return Error{ErrorKind::kMalformed,
                 "the version after libcuda's application-profile path "
                 "does not parse"};
  }
  return std::optional<std::string>(std::string(v));
}

Result<std::optional<std::string>> version_in_file(const FsRoot& root,
                                                   const std::string& node_path) {
  Result<int> fd = root.open(node_path, O_RDONLY | O_CLOEXEC);
  if (!fd) return fd.error();
  // Chunks overlapping by the marker's span, so one split across two is found.
  const size_t keep = kProfileMarker.size() + kMaxReleaseChars + kProfileEnd.size();
  std::string window;
  uint64_t total = 0;
  std::string buf(kScanChunkBytes, '\0');
  Result<std::optional<std::string>> found = std::optional<std::string>{};
  while (total < kMaxLibraryScanBytes) {
    const ssize_t n = ::read(*fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      found = errno_error(errno, "cannot read " + node_path);
      break;
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    window.append(buf.data(), static_cast<size_t>(n));
    const size_t at = window.find(kProfileMarker);
    if (at != std::string::npos && window.size() - at >= keep) {
      found = version_in_bytes(window);
      break;
    }
    if (at == std::string::npos && window.size() > keep) window.erase(0, window.size() - keep);
  }
  if (found && !*found && total < kMaxLibraryScanBytes) found = version_in_bytes(window);
  ::close(*fd);
  return found;
}

}  // namespace gt
