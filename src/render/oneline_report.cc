#include "render/oneline_report.h"

#include <set>

namespace gt {

void render_oneline(const Report& r, std::ostream& out) {
  const NodeSnapshot& s = r.snapshot;
  int crit = 0, warn = 0;
  std::set<std::string> ids;
  for (const Finding& f : r.findings) {
    if (f.severity == Severity::kCritical) ++crit;
    if (f.severity == Severity::kWarning) ++warn;
    if (f.severity >= Severity::kWarning) ids.insert(f.id);
  }
  out << verdict_word(r) << " gpus=" << (s.gpu_count ? std::to_string(*s.gpu_count) : "?") << "/"
      << s.pci_devices.size() << " critical=" << crit << " warning=" << warn;
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

}  // namespace gt
