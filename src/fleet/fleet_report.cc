// Host lines follow render_oneline's fields (gpus=NVML/PCI, critical,
// warning, driver, ids of warning-or-worse findings, sorted), computed from
// the JSON report so a report merged from a remote gpu-triage and one
// judged here print alike. Values never hold times or durations: identical
// hosts give identical text after "host: ", which is what dshbak -c and
// clush -b fold. An UNKNOWN host carries ssh's own error, quoted.
#include "fleet/fleet_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/snapshot.h"
#include "util/json_depth.h"
#include "util/json_text.h"

namespace gt {
namespace {

/// j[key] when j is an object holding a string there, else `fallback`: a
/// remote report is whatever the host sent, and value() throws on a mismatch.
std::string string_field(const nlohmann::ordered_json& j, const char* key,
                         const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int rank(const std::string& verdict) {
  if (verdict == "CRITICAL") return 3;
  if (verdict == "UNKNOWN") return 2;
  if (verdict == "WARNING") return 1;
  return 0;
}

/// Ids of the warning-or-worse findings, sorted and unique.
std::set<std::string> problem_ids(const nlohmann::ordered_json& report) {
  std::set<std::string> ids;
  if (!report.is_object() || !report.contains("findings")) return ids;
  for (const auto& f : report["findings"]) {
    std::string sev = string_field(f, "severity", "");
    if (sev == "warning" || sev == "critical") ids.insert(string_field(f, "id", "?"));
  }
  return ids;
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return q + "\"";
}

std::string report_fields(const nlohmann::ordered_json& j) {
  int crit = 0, warn = 0;
  for (const auto& f : j.value("findings", nlohmann::ordered_json::array())) {
    std::string sev = string_field(f, "severity", "");
    crit += sev == "critical";
    warn += sev == "warning";
  }
  const auto& count = j.contains("gpu_count") ? j["gpu_count"] : nlohmann::ordered_json();
  // As --oneline: the GPUs answering (status "ok"), when the report lists
  // them; an integer count only: get<int64_t>() of 1e300 would be a float
  // cast out of range.
  std::string answering = count.is_number_integer() ? json_text(count) : "?";
  if (count.is_number_integer() && j.contains("gpus") && j["gpus"].is_array()) {
    size_t ok = 0;
    for (const auto& g : j["gpus"]) ok += g.is_object() && string_field(g, "status", "") == "ok";
    answering = std::to_string(ok);
  }
  // As --oneline: a capture read no PCI bus, so its second count is "-".
  const bool capture = string_field(j, "source", "") == origin_name(Origin::kCapture);
  const std::string pci =
      capture ? "-"
              : std::to_string(j.value("pci_devices", nlohmann::ordered_json::array()).size());
  std::string s = "gpus=" + answering + "/" + pci + " critical=" + std::to_string(crit) +
                  " warning=" + std::to_string(warn);
  if (j.contains("driver_version") && j["driver_version"].is_string())
    s += " driver=" + j["driver_version"].get<std::string>();
  std::set<std::string> ids = problem_ids(j);
  if (!ids.empty()) {
    s += " ids=";
    bool first = true;
    for (const std::string& id : ids) s += (first ? "" : ",") + id, first = false;
  }
  return s;
}

}  // namespace

int verdict_exit_code(const std::string& verdict, bool npd) {
  switch (rank(verdict)) {
    case 3:
      return npd ? 1 : 2;
    case 2:
      return npd ? 2 : 3;
    case 1:
      return 1;
  }
  return 0;
}

HostReport host_report_from_json(const std::string& host, const std::string& via,
                                 nlohmann::ordered_json report) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.verdict = string_field(report, "verdict", "UNKNOWN");
  if (r.verdict == "INFO") r.verdict = "OK";
  r.report = std::move(report);
  return r;
}

std::optional<nlohmann::ordered_json> parse_saved_report(std::string_view text, std::string& why) {
  std::optional<nlohmann::ordered_json> j = try_parse_json<nlohmann::ordered_json>(text, why);
  if (j && !j->is_object()) {
    why = "not a gpu-triage JSON report";
    return std::nullopt;
  }
  if (!j && why.size() > 200) why = why.substr(0, 200);
  return j;
}

HostReport host_unknown(const std::string& host, const std::string& via, std::string error) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.error = std::move(error);
  return r;
}

std::string host_line(const HostReport& r) {
  std::string line = r.host + ": " + r.verdict;
  if (r.report.is_object()) line += " " + report_fields(r.report);
  if (r.error) line += " error=" + quoted(*r.error);
  return line;
}

void render_fleet_text(const std::vector<HostReport>& reports, std::ostream& out) {
  std::map<std::string, int> verdicts;
  std::map<std::string, int> ids;
  for (const HostReport& r : reports) {
    out << host_line(r) << "\n";
    ++verdicts[r.verdict];
    for (const std::string& id : problem_ids(r.report)) ++ids[id];
  }
  out << "summary: " << reports.size() << " hosts: " << verdicts["OK"] << " ok, "
      << verdicts["WARNING"] << " warning, " << verdicts["CRITICAL"] << " critical, "
      << verdicts["UNKNOWN"] << " unknown\n";
  std::vector<std::pair<std::string, int>> top(ids.begin(), ids.end());
  std::stable_sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second > b.second; });
  out << "summary: most common findings:";
  if (top.empty()) out << " none";
  for (size_t i = 0; i < top.size() && i < 5; ++i)
    out << (i ? ", " : " ") << top[i].first << " (" << top[i].second << " host"
        << (top[i].second == 1 ? "" : "s") << ")";
  out << "\n";
}

nlohmann::ordered_json fleet_to_json(const std::vector<HostReport>& reports, bool npd) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const HostReport& r : reports) {
    nlohmann::ordered_json h;
    h["host"] = r.host;
    h["verdict"] = r.verdict;
    h["exit_code"] = verdict_exit_code(r.verdict, npd);
    h["via"] = r.via;
    h["error"] = r.error ? nlohmann::ordered_json(*r.error) : nlohmann::ordered_json();
    h["report"] = r.report;
    a.push_back(std::move(h));
  }
  return a;
}

int fleet_exit_code(const std::vector<HostReport>& reports, bool npd) {
  std::string worst = "OK";
  for (const HostReport& r : reports)
    if (rank(r.verdict) > rank(worst)) worst = r.verdict;
  return verdict_exit_code(worst, npd);
}

}  // namespace gt
