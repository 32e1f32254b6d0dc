#include "model/incident.h"

#include <fmt/format.h>

namespace gt {

const char* boot_ending_name(BootEnding e) {
  switch (e) {
    case BootEnding::kAbrupt:
      return "abrupt";
    case BootEnding::kCleanShutdown:
      return "clean_shutdown";
    case BootEnding::kKernelPanic:
      return "kernel_panic";
    case BootEnding::kReboot:
      return "reboot";
    case BootEnding::kUnknown:
      return "unknown";
  }
  return "?";  // not an enumerator
}

std::string last_minutes_summary(const PreviousBoot& b) {
  std::vector<std::string> parts;
  auto part = [&](const MessageTally& t, const char* one, const char* many) {
    if (t.count) parts.push_back(fmt::format("{} {}", t.count, t.count == 1 ? one : many));
  };
  part(b.io_errors, "I/O error", "I/O errors");
  part(b.read_only_remounts, "read-only remount", "read-only remounts");
  part(b.hung_tasks, "hung task", "hung tasks");
  part(b.oom_kills, "OOM kill", "OOM kills");
  part(b.storage_resets, "storage reset", "storage resets");
  part(b.xids, "Xid", "Xids");
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace gt
