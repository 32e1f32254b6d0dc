// A host's outcome and the fleet's exit code (the output is
// render/fleet_render's).
#include "fleet/fleet_report.h"

#include <algorithm>
#include <utility>

namespace gt {

HostReport host_report(const std::string& host, HostVia via, Report report) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.report = std::move(report);
  return r;
}

HostReport host_unknown(const std::string& host, HostVia via, std::string error) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.error = std::move(error);
  return r;
}

int fleet_exit_code(const std::vector<HostReport>& reports, bool npd) {
  Verdict worst = Verdict::kOk;
  for (const HostReport& r : reports) worst = std::max(worst, host_verdict(r));  // rank order
  return verdict_exit_code(worst, npd);
}

}  // namespace gt
