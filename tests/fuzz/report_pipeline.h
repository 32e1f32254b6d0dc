// What every snapshot-producing fuzz target does after parsing: judge the
// snapshot and render it every way the tool can, so a strange value that
// parses is also followed through the checks, the plan and the renderers.
#pragma once

#include <sstream>

#include "checks/registry.h"
#include "model/report.h"
#include "render/prometheus.h"
#include "render/table_report.h"
#include "report/json_report.h"

namespace gt {

inline void judge_and_render(Report& report) {
  judge(report, CheckOptions{});
  std::ostringstream out;
  render_json(report, out);
  render_table(report, TableOptions{}, out);
  render_table(report, TableOptions{true, false, 100}, out);
  out << render_prometheus(report, PrometheusContext{"fuzz", std::nullopt});
}

}  // namespace gt
