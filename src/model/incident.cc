#include "model/incident.h"

#include <fmt/format.h>

namespace gt {

std::string last_minutes_summary(const PreviousBoot& b) {
  std::vector<std::string> parts;
  auto part = [&](const MessageTally& t, const char* noun) {
    if (t.count) parts.push_back(fmt::format("{} {}", t.count, noun));
  };
  part(b.io_errors, "I/O errors");
  part(b.read_only_remounts, "read-only remounts");
  part(b.hung_tasks, "hung tasks");
  part(b.oom_kills, "OOM kills");
  part(b.storage_resets, "storage resets");
  part(b.xids, "Xids");
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace gt
