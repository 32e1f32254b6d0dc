// Host lines are render_oneline's line after "host: " (the verdict word,
// gpus=NVML/PCI, critical, warning, driver, ids of warning-or-worse
// findings, sorted), so a report merged from a remote gpu-triage, one read
// from a file and one judged here print alike, and as --oneline does on
// the node itself. Values never hold times or durations: identical hosts
// give identical text after "host: ", which is what dshbak -c and clush -b
// fold. An UNKNOWN host carries ssh's own error, quoted.
#include "render/fleet_render.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "render/oneline_report.h"
#include "report/json_report.h"
#include "report/json_util.h"
#include "util/json_text.h"
#include "util/plural.h"
#include "util/terminal_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;

/// Ids of the warning-or-worse findings, sorted and unique.
std::set<std::string> problem_ids(const HostReport& r) {
  std::set<std::string> ids;
  if (!r.report) return ids;
  for (const Finding& f : r.report->findings)
    if (f.severity >= Severity::kWarning) ids.insert(f.id);
  return ids;
}

/// `s` in double quotes, `"` and `\` escaped, then shown (for_terminal: a
/// control character or invalid byte as \e, \n, \xNN...) and at most 400
/// bytes: one line whatever the host printed.
std::string quoted(const std::string& s) {
  std::string q;
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return "\"" + for_terminal(q, 400) + "\"";
}

std::string host_list(const std::vector<std::string>& hosts) {
  std::string s;
  for (size_t i = 0; i < hosts.size() && i < 20; ++i) s += (i ? ", " : "") + for_terminal(hosts[i]);
  if (hosts.size() > 20) s += " and " + std::to_string(hosts.size() - 20) + " more";
  return s;
}

J value_json(const DriftValue& v) { return J{{"value", v.value}, {"hosts", v.hosts}}; }

/// "drift: own past: HOST: ..." lines, after a count of each state.
void render_own_past_text(const std::vector<HostOwnPast>& hosts, std::ostream& out) {
  if (hosts.empty()) return;
  size_t changed = 0, unchanged = 0, no_run = 0, unknown = 0;
  for (const HostOwnPast& h : hosts) {
    if (h.state == OwnPastState::kCompared) ++(h.changes.empty() ? unchanged : changed);
    if (h.state == OwnPastState::kNoEarlierRun) ++no_run;
    if (h.state == OwnPastState::kNotKnown) ++unknown;
  }
  out << "drift: own past: " << count_of(changed, "host", "hosts") << " changed, " << unchanged
      << " unchanged, " << no_run << " with no earlier run recorded, " << unknown << " not known\n";
  for (const HostOwnPast& h : hosts) {
    const std::string head = "drift: own past: " + for_terminal(h.host) + ": ";
    if (h.state == OwnPastState::kNotKnown) {
      out << head << "own past not known (" << for_terminal(h.why.value_or("no record")) << ")\n";
      continue;
    }
    if (h.state == OwnPastState::kNoEarlierRun) {
      out << head << "no earlier run recorded\n";
      continue;
    }
    const std::string when = for_terminal(h.baseline_when.value_or("an earlier run"));
    if (h.changes.empty()) out << head << "unchanged since " << when << "\n";
    for (const FingerprintChange& c : h.changes)
      out << head << "since " << when << ": " << fingerprint_change_kind_name(c.kind) << " "
          << for_terminal(c.item) << ": " << for_terminal(c.before) << " -> "
          << for_terminal(c.after) << "\n";
  }
}

J own_past_json(const std::vector<HostOwnPast>& hosts) {
  J a = J::array();
  for (const HostOwnPast& h : hosts) {
    J changes = J::array();
    for (const FingerprintChange& c : h.changes)
      changes.push_back(J{{"kind", fingerprint_change_kind_name(c.kind)},
                          {"item", c.item},
                          {"before", c.before},
                          {"after", c.after}});
    J baseline;
    if (h.state == OwnPastState::kCompared)
      baseline = J{{"boot_id", h.baseline_boot_id ? J(*h.baseline_boot_id) : J()},
                   {"this_boot", h.baseline_this_boot},
                   {"time", json_util::iso_time(h.baseline_unix_s)},
                   {"when", h.baseline_when ? J(*h.baseline_when) : J()}};
    a.push_back(J{{"host", h.host},
                  {"state", own_past_state_name(h.state)},
                  {"why", h.why ? J(*h.why) : J()},
                  {"baseline", baseline},
                  {"changes", changes}});
  }
  return a;
}

}  // namespace

std::string host_line(const HostReport& r) {
  std::string line = for_terminal(r.host) + ": ";
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
  std::array<int, std::size(kVerdicts)> verdicts{};  // by Verdict
  std::map<std::string, int> ids;
  for (const HostReport& r : reports) {
    out << host_line(r) << "\n";
    ++verdicts.at(static_cast<size_t>(host_verdict(r)));
    for (const std::string& id : problem_ids(r)) ++ids[id];
  }
  auto hosts = [&](Verdict v) { return verdicts.at(static_cast<size_t>(v)); };
  out << "summary: " << count_of(reports.size(), "host", "hosts") << ": " << hosts(Verdict::kOk)
      << " ok, " << hosts(Verdict::kWarning) << " warning, " << hosts(Verdict::kCritical)
      << " critical, " << hosts(Verdict::kUnknown) << " unknown\n";
  std::vector<std::pair<std::string, int>> top(ids.begin(), ids.end());
  std::stable_sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second > b.second; });
  out << "summary: most common findings:";
  if (top.empty()) out << " none";
  for (size_t i = 0; i < top.size() && i < 5; ++i)
    out << (i ? ", " : " ") << top[i].first << " ("
        << count_of(static_cast<size_t>(top[i].second), "host", "hosts") << ")";
  out << "\n";
}

nlohmann::ordered_json fleet_to_json(const std::vector<HostReport>& reports, bool npd) {
  J a = J::array();
  for (const HostReport& r : reports) {
    const Verdict verdict = host_verdict(r);
    a.push_back(J{{"host", r.host},
                  {"verdict", verdict_name(verdict)},
                  {"exit_code", verdict_exit_code(verdict, npd)},
                  {"via", host_via_name(r.via)},
                  {"error", r.error ? J(*r.error) : J()},
                  {"report", r.report ? report_to_json(*r.report) : J()}});
  }
  return a;
}

void render_drift_text(const DriftReport& d, std::ostream& out) {
  out << "drift: " << count_of(d.differing.size(), "property", "properties") << " differ across "
      << count_of(d.hosts_compared, "compared host", "compared hosts") << "\n";
  for (const DriftProperty& p : d.differing) {
    out << "drift: " << for_terminal(p.property) << (p.sku ? " [" + for_terminal(*p.sku) + "]" : "")
        << ": ";
    if (p.majority)
      out << for_terminal(p.majority->value) << " on "
          << count_of(p.majority->hosts.size(), "host", "hosts") << "; differs: ";
    else
      out << "no majority: ";
    for (size_t i = 0; i < p.others.size(); ++i)
      out << (i ? "; " : "") << for_terminal(p.others[i].value) << " on "
          << host_list(p.others[i].hosts);
    if (!p.unknown_hosts.empty()) out << " (not told by " << host_list(p.unknown_hosts) << ")";
    out << "\n";
  }
  for (const NotCompared& n : d.not_compared)
    out << "drift: not compared: " << for_terminal(n.host) << ": " << for_terminal(n.why) << "\n";
  render_own_past_text(d.own_past, out);
}

nlohmann::ordered_json drift_to_json(const DriftReport& d) {
  J props = J::array();
  for (const DriftProperty& p : d.differing) {
    J others = J::array();
    for (const DriftValue& v : p.others) others.push_back(value_json(v));
    props.push_back(J{{"property", p.property},
                      {"sku", p.sku ? J(*p.sku) : J()},
                      {"majority", p.majority ? value_json(*p.majority) : J()},
                      {"differing", others},
                      {"unknown_hosts", p.unknown_hosts}});
  }
  J nc = J::array();
  for (const NotCompared& n : d.not_compared) nc.push_back(J{{"host", n.host}, {"why", n.why}});
  return J{{"hosts_compared", d.hosts_compared},
           {"differing", props},
           {"not_compared", nc},
           {"own_past", own_past_json(d.own_past)}};
}

nlohmann::ordered_json fleet_findings_json(const std::vector<FleetFinding>& found) {
  J arr = J::array();
  for (const FleetFinding& f : found)
    arr.push_back(J{{"id", f.id},
                    {"severity", severity_name(f.severity)},
                    {"title", f.title},
                    {"code", f.code},
                    {"hosts", f.hosts},
                    {"first_time", json_util::iso_time(f.first_unix_s)},
                    {"last_time", json_util::iso_time(f.last_unix_s)},
                    {"events", f.events}});
  return arr;
}

std::string render_fleet(const std::vector<HostReport>& reports,
                         const std::vector<FleetFinding>& fleet,
                         const std::optional<DriftReport>& drift, bool json, bool npd) {
  std::ostringstream out;
  if (json) {
    J j = {{"schema", "gpu-triage/fleet"},
           {"schema_version", 2},
           {"hosts", fleet_to_json(reports, npd)},
           {"fleet_findings", fleet_findings_json(fleet)},
           {"drift", drift ? drift_to_json(*drift) : J()}};
    out << json_text(j, 2) << "\n";
    return out.str();
  }
  render_fleet_text(reports, out);
  for (const FleetFinding& f : fleet) {
    out << "fleet: WARNING " << f.id << ": " << for_terminal(f.title) << ": ";
    for (size_t i = 0; i < f.hosts.size(); ++i) out << (i ? ", " : "") << for_terminal(f.hosts[i]);
    out << "\n";
  }
  if (drift) render_drift_text(*drift, out);
  return out.str();
}

}  // namespace gt
