// Saved --json reports (gpu-triage --reports DIR): each input is one report
// file. It is parsed as the fleet parses it (an object, nesting bounded),
// taken as two hosts' reports beside an unreachable one, correlated,
// compared for drift and printed as text and JSON.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fleet/correlate.h"
#include "fleet/drift.h"
#include "fleet/fleet_report.h"
#include "fuzz_target.h"
#include "util/json_text.h"

GT_FUZZ_TARGET(saved_report) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  std::optional<nlohmann::ordered_json> j = gt::parse_saved_report(text, why);
  std::vector<gt::HostReport> hosts;
  if (j) {
    hosts.push_back(gt::host_report_from_json("a", "report", *j));
    hosts.push_back(gt::host_report_from_json("b\xff", "report", std::move(*j)));
  }
  hosts.push_back(gt::host_unknown("c", "report", "c.json: " + why));
  std::vector<gt::FleetFinding> fleet = gt::correlate_xids(hosts);
  gt::apply_fleet_findings(fleet, hosts);
  gt::DriftReport drift = gt::find_drift(hosts);
  std::ostringstream out;
  gt::render_fleet_text(hosts, out);
  gt::render_drift_text(drift, out);
  for (const gt::HostReport& h : hosts) out << gt::host_line(h);
  (void)gt::json_text(gt::fleet_to_json(hosts, true), 2);
  (void)gt::json_text(gt::fleet_findings_json(fleet));
  (void)gt::json_text(gt::drift_to_json(drift));
  return 0;
}
