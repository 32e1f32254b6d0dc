#include "render/oneline_report.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "util/terminal_text.h"

namespace gt {
namespace {

/// "7/8": GPUs answering through NVML (listed and every call answered: a
/// lost, hung or inaccessible GPU does not count) / NVIDIA GPUs on the PCI
/// bus. "?" first: NVML could not list the GPUs; "-" second: the bus was not
/// read (a capture is another node's). No GPU at all: "0/0".
std::string gpu_counts(const Report& r) {
  const NodeSnapshot& s = r.snapshot;
  const size_t answering = std::count_if(
      s.gpus.begin(), s.gpus.end(), [](const GpuState& g) { return g.status == GpuStatus::kOk; });
  std::string a = s.gpu_count ? std::to_string(answering) : r.could_not_check ? "0" : "?";
  return a + "/" + (pci_bus_read(s.source) ? std::to_string(s.pci_devices.size()) : "-");
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
  out << verdict_word(r) << " gpus=" << gpu_counts(r) << " critical=" << crit
      << " warning=" << warn;
  if (s.driver_version) out << " driver=" << for_terminal(*s.driver_version);
  if (!ids.empty()) {
    out << " ids=";
    bool first = true;
    for (const std::string& id : ids) {
      out << (first ? "" : ",") << for_terminal(id);
      first = false;
    }
  }
  out << "\n";
}

void render_oneline_npd(const Report& r, std::ostream& out, size_t max_bytes) {
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
  std::string line = verdict_word(r) + " gpus=" + gpu_counts(r) +
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
