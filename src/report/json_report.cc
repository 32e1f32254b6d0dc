#include "report/json_report.h"

#include <ctime>

#include "report/json_codec.h"
#include "report/json_util.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_codec::write;

}  // namespace

nlohmann::ordered_json snapshot_to_json(const NodeSnapshot& snap) { return write(snap); }

nlohmann::ordered_json report_to_json(const Report& r) {
  J j;
  j["schema"] = "gpu-triage/report";
  j["schema_version"] = kReportSchemaVersion;
  j["verdict"] = verdict_word(r);
  j["exit_code"] = r.exit_code;
  j["findings"] = write(r.findings);
  J plan = J::array();
  int n = 0;
  for (const PlanStep& p : r.plan) {
    J step = J::object();
    step["step"] = ++n;   // its place in the plan, then the step's fields
    J fields = write(p);  // a named value: items() must not dangle
    for (auto& [key, value] : fields.items()) step[key] = std::move(value);
    plan.push_back(std::move(step));
  }
  j["plan"] = plan;
  J snap = snapshot_to_json(r.snapshot);  // a named value: items() must not dangle
  for (auto& [key, value] : snap.items())
    if (key != "schema" && key != "schema_version") j[key] = value;
  return j;
}

void render_json(const Report& r, std::ostream& out) {
  // Invalid UTF-8 (a cmdline can hold any bytes) is replaced, never thrown.
  out << json_text(report_to_json(r), 2) << "\n";
}

}  // namespace gt
