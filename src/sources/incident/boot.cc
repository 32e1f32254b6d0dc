#include "sources/incident/boot.h"

#include <cstdlib>

#include "sources/procfs/process_info.h"
#include "util/numeric.h"

namespace gt {

void read_this_boot(const FsRoot& root, Incident& out) {
  out.boot_time_unix_s = read_boot_time_unix_s(root);
  if (!out.boot_time_unix_s) out.unread.push_back("boot time: /proc/stat has no readable btime");
  out.boot_id = root.read_optional_trimmed("/proc/sys/kernel/random/boot_id");
  if (!out.boot_id) out.unread.push_back("boot id: /proc/sys/kernel/random/boot_id not readable");
  if (std::optional<std::string> up = root.read_optional_trimmed("/proc/uptime")) {
    char* end = nullptr;
    double v = std::strtod(up->c_str(), &end);
    // "inf", "nan" or 1e300 is no uptime (and later cast to whole seconds).
    if (end != up->c_str()) out.uptime_s = checked_double(v, 0, kMaxUnixS);
  }
}

}  // namespace gt
