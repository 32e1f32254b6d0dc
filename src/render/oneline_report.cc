#include "render/oneline_report.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace gt {
namespace {

/// "8/8": NVML's count / GPUs on the PCI bus; a capture has no bus: "8/-".
std::string gpu_counts(const NodeSnapshot& s) {
  return (s.gpu_count ? std::to_string(*s.gpu_count) : "?") + "/" +
         (s.source == "nvml" ? std::to_string(s.pci_devices.size()) : "-");
}

}  // namespace

void render_oneline(const Report& r, std::ostream& out) {
  const NodeSnapshot& s = r.snapshot;
  int crit = 0, warn = 0;
  std::set<std::string> ids;
  for (const Finding& f : r.findings) {
    if (f.severity == Severity::kCritical) ++crit;
    if (f.severity == Severity::kWarning) ++warn;
    if (f.severity >= Severity::kWarning) ids.insert(f.id);
  }
  out << verdict_word(r) << " gpus=" << gpu_counts(s) << " critical=" << crit
      << " warning=" << warn;
  if (s.driver_version) out << " driver=" << *s.driver_version;
  if (!ids.empty()) {
    out << " ids=";
    bool first = true;
    for (const std::string& id : ids) {
      out << (first ? "" : ",") << id;
      first = false;
    }
  }
  out << "\n";
}

void render_oneline_npd(const Report& r, std::ostream& out, size_t max_bytes) {
  const NodeSnapshot& s = r.snapshot;
  int crit = 0, warn = 0;
  std::vector<std::pair<Severity, std::string>> ids;  // worst first, then by id
  for (const Finding& f : r.findings) {
    if (f.severity == Severity::kCritical) ++crit;
    if (f.severity == Severity::kWarning) ++warn;
    if (f.severity < Severity::kWarning) continue;
    bool seen =
        std::any_of(ids.begin(), ids.end(), [&](const auto& p) { return p.second == f.id; });
    if (!seen) ids.emplace_back(f.severity, f.id);
  }
  std::stable_sort(ids.begin(), ids.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string line = verdict_word(r) + " gpus=" + gpu_counts(s) +
                     " critical=" + std::to_string(crit) + " warning=" + std::to_string(warn);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string next = (i == 0 ? " ids=" : ",") + ids[i].second;
    size_t left = ids.size() - i - 1;
    std::string more = left > 0 ? ",+" + std::to_string(left) : "";
    if (line.size() + next.size() + more.size() > max_bytes) {
      std::string rest = (i == 0 ? " ids=+" : ",+") + std::to_string(ids.size() - i);
      if (line.size() + rest.size() <= max_bytes) line += rest;
      break;
    }
    line += next;
  }
  if (line.size() > max_bytes) line.resize(max_bytes);
  out << line << "\n";
}

}  // namespace gt
