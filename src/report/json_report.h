// JSON rendering of a NodeSnapshot (schema documented in docs/json.md).
//
// Keys follow nvidia-smi's query names as nested objects (memory.used ->
// {"memory": {"used_bytes": ...}}) with the unit in the leaf name. Unknown
// values are null, never 0.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/report.h"

namespace gt {

/// The report's schema_version (docs/json.md); report_from_json reads only it.
inline constexpr int kReportSchemaVersion = 2;  // 2: servers[], subject.server_id

/// Builds the JSON document for `snap`.
nlohmann::ordered_json snapshot_to_json(const NodeSnapshot& snap);

/// The whole report: the snapshot's keys plus verdict, exit_code, findings
/// and plan.
nlohmann::ordered_json report_to_json(const Report& report);

/// Writes report_to_json(report) indented by 2, with a trailing newline.
void render_json(const Report& report, std::ostream& out);

}  // namespace gt
