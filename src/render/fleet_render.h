// The fleet's output (--host, --hosts-file, --smi-xml DIR, --reports DIR):
// one line per host in pdsh's "host: text" form (the verdict word first after
// the prefix, stable key=value fields, no times, so dshbak -c and clush -b
// fold identical hosts), two summary lines, the fleet findings and the
// drift; or one JSON document (schema gpu-triage/fleet, docs/json.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/fleet.h"

namespace gt {

/// The whole fleet output, text or JSON (with `npd`, each host's exit code
/// in Node Problem Detector's codes).
std::string render_fleet(const std::vector<HostReport>& reports,
                         const std::vector<FleetFinding>& fleet,
                         const std::optional<DriftReport>& drift, bool json, bool npd);

/// "node01: OK gpus=8/8 critical=0 warning=0 driver=590.48.01" or
/// "node02: UNKNOWN error=\"ssh: connect to host node02 port 22: Connection refused\"".
std::string host_line(const HostReport& r);

/// Every host line in the given order, then two summary lines: the counts
/// per verdict and the most common findings (by number of hosts).
void render_fleet_text(const std::vector<HostReport>& reports, std::ostream& out);

/// "drift: ..." lines.
void render_drift_text(const DriftReport& d, std::ostream& out);

/// [{host, verdict, exit_code, via, error, report}, ...] in the given order.
nlohmann::ordered_json fleet_to_json(const std::vector<HostReport>& reports, bool npd);
nlohmann::ordered_json drift_to_json(const DriftReport& d);
nlohmann::ordered_json fleet_findings_json(const std::vector<FleetFinding>& found);

}  // namespace gt
