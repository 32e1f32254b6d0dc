// The fleet's output: one line per host in pdsh's "host: text" form (the
// verdict word first after the prefix, stable key=value fields, no times,
// so dshbak -c and clush -b fold identical hosts), a summary, or a JSON
// array of host reports; the exit code is the worst host's.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/report.h"

namespace gt {

/// One host's outcome.
struct HostReport {
  std::string host;
  std::string via;  ///< "gpu-triage" (ran there), "nvidia-smi" (gathered, judged here),
                    ///< "capture", "report" (a saved --json), "ssh"
  std::optional<std::string> error;  ///< why there is no report (ssh's words, timeout)
  /// The host's report: judged here (a capture, a gathered host) or read
  /// back with report_from_json (a remote gpu-triage, a saved report).
  std::optional<Report> report;
};

/// A host with its report.
HostReport host_report(const std::string& host, const std::string& via, Report report);

/// OK, WARNING, CRITICAL or UNKNOWN (no report, or the report's own UNKNOWN).
std::string host_verdict(const HostReport& r);

/// An UNKNOWN host with `error`.
HostReport host_unknown(const std::string& host, const std::string& via, std::string error);

/// "node01: OK gpus=8/8 critical=0 warning=0 driver=590.48.01" or
/// "node02: UNKNOWN error=\"ssh: connect to host node02 port 22: Connection refused\"".
std::string host_line(const HostReport& r);

/// Every host line in the given order, then two summary lines: the counts
/// per verdict and the most common findings (by number of hosts).
void render_fleet_text(const std::vector<HostReport>& reports, std::ostream& out);

/// [{host, verdict, exit_code, via, error, report}, ...] in the given order.
nlohmann::ordered_json fleet_to_json(const std::vector<HostReport>& reports, bool npd);

/// The exit code of the worst host: CRITICAL > UNKNOWN > WARNING > OK, in
/// Nagios codes (2, 3, 1, 0) or with `npd` Node Problem Detector's (1, 2, 1, 0).
int fleet_exit_code(const std::vector<HostReport>& reports, bool npd);

/// Nagios exit code of a verdict word.
int verdict_exit_code(const std::string& verdict, bool npd);

}  // namespace gt
