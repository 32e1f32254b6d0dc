// Host lines are render_oneline's line after "host: " (the verdict word,
// gpus=NVML/PCI, critical, warning, driver, ids of warning-or-worse
// findings, sorted), so a report merged from a remote gpu-triage, one read
// from a file and one judged here print alike, and as --oneline does on
// the node itself. Values never hold times or durations: identical hosts
// give identical text after "host: ", which is what dshbak -c and clush -b
// fold. An UNKNOWN host carries ssh's own error, quoted.
#include "fleet/fleet_report.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <sstream>

#include "render/json_report.h"
#include "render/oneline_report.h"

namespace gt {
namespace {

/// The order hosts are ranked in for the fleet's exit code.
constexpr std::array<const char*, 4> kByRank = {"OK", "WARNING", "UNKNOWN", "CRITICAL"};

int rank(const std::string& verdict) {
  for (size_t i = 0; i < kByRank.size(); ++i)
    if (verdict == kByRank[i]) return static_cast<int>(i);
  return 0;
}

/// Ids of the warning-or-worse findings, sorted and unique.
std::set<std::string> problem_ids(const HostReport& r) {
  std::set<std::string> ids;
  if (!r.report) return ids;
  for (const Finding& f : r.report->findings)
    if (f.severity >= Severity::kWarning) ids.insert(f.id);
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

HostReport host_report(const std::string& host, const std::string& via, Report report) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.report = std::move(report);
  return r;
}

HostReport host_unknown(const std::string& host, const std::string& via, std::string error) {
  HostReport r;
  r.host = host;
  r.via = via;
  r.error = std::move(error);
  return r;
}

std::string host_verdict(const HostReport& r) {
  return r.report ? verdict_word(*r.report) : "UNKNOWN";
}

std::string host_line(const HostReport& r) {
  std::string line = r.host + ": ";
  if (r.report) {
    std::ostringstream one;
    render_oneline(*r.report, one);
    std::string text = one.str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    line += text;
  } else {
    line += "UNKNOWN";
  }
  if (r.error) line += " error=" + quoted(*r.error);
  return line;
}

void render_fleet_text(const std::vector<HostReport>& reports, std::ostream& out) {
  std::array<int, kByRank.size()> verdicts{};
  std::map<std::string, int> ids;
  for (const HostReport& r : reports) {
    out << host_line(r) << "\n";
    ++verdicts.at(rank(host_verdict(r)));
    for (const std::string& id : problem_ids(r)) ++ids[id];
  }
  out << "summary: " << reports.size() << " hosts: " << verdicts.at(rank("OK")) << " ok, "
      << verdicts.at(rank("WARNING")) << " warning, " << verdicts.at(rank("CRITICAL"))
      << " critical, " << verdicts.at(rank("UNKNOWN")) << " unknown\n";
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
  using J = nlohmann::ordered_json;
  J a = J::array();
  for (const HostReport& r : reports) {
    const std::string verdict = host_verdict(r);
    a.push_back(J{{"host", r.host},
                  {"verdict", verdict},
                  {"exit_code", verdict_exit_code(verdict, npd)},
                  {"via", r.via},
                  {"error", r.error ? J(*r.error) : J()},
                  {"report", r.report ? report_to_json(*r.report) : J()}});
  }
  return a;
}

int fleet_exit_code(const std::vector<HostReport>& reports, bool npd) {
  std::string worst = "OK";
  for (const HostReport& r : reports)
    if (rank(host_verdict(r)) > rank(worst)) worst = host_verdict(r);
  return verdict_exit_code(worst, npd);
}

}  // namespace gt
