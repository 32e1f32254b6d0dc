#include "sources/procfs/hostname.h"

#include <unistd.h>

namespace gt {

std::optional<std::string> read_hostname(const FsRoot& root) {
  if (root.root() == "/") {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) return std::string(buf);
    return std::nullopt;
  }
  if (auto h = root.read_optional_trimmed("/etc/hostname")) return h;
  return root.read_optional_trimmed("/proc/sys/kernel/hostname");
}

}  // namespace gt
