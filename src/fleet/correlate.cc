#include "fleet/correlate.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include "model/xid_catalog.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;

/// Codes whose simultaneous appearance on several hosts points away from
/// one GPU: the application's or the fabric's (the catalogue's classes).
const char* cause_of(int code) {
  switch (xid_facts(code).cls) {
    case XidClass::kApplication:
      return "the job";
    case XidClass::kFabric:
      return "the fabric";
    default:
      return nullptr;
  }
}

/// "2026-01-01T00:00:00Z" -> Unix seconds; nullopt otherwise.
std::optional<int64_t> parse_iso_utc(const J& j) {
  if (!j.is_string()) return std::nullopt;
  std::tm tm{};
  const std::string s = j.get<std::string>();
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

struct Event {
  int64_t t;
  size_t host;
  std::string bus;
  uint64_t count;
};

/// code -> events with a wall time, over every host.
std::map<int, std::vector<Event>> events_by_code(const std::vector<HostReport>& hosts) {
  std::map<int, std::vector<Event>> out;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const J& r = hosts[h].report;
    if (!r.is_object() || !r.contains("kernel_log") || !r["kernel_log"].is_object()) continue;
    const J& ev = r["kernel_log"].value("events", J::array());
    if (!ev.is_array()) continue;
    for (const J& e : ev) {
      if (!e.is_object() || !e.value("code", J()).is_number_integer()) continue;
      int code = e["code"].get<int>();
      auto t = parse_iso_utc(e.value("time", J()));
      if (!cause_of(code) || !t) continue;
      const J& c = e.value("count", J(1));
      uint64_t n = c.is_number_integer() && c.get<int64_t>() > 0 ? c.get<uint64_t>() : 1;
      out[code].push_back(
          {*t, h,
           e.value("pci_bus_id", J("")).is_string() ? e["pci_bus_id"].get<std::string>() : "", n});
    }
  }
  return out;
}

FleetFinding finding_of(int code, const std::vector<Event>& cluster,
                        const std::vector<HostReport>& hosts) {
  FleetFinding f;
  f.code = code;
  f.id = "fleet.xid_correlated." + std::to_string(code);
  std::set<size_t> seen;
  f.first_unix_s = cluster.front().t;
  f.last_unix_s = cluster.back().t;
  for (const Event& e : cluster) {
    if (seen.insert(e.host).second) f.hosts.push_back(hosts[e.host].host);
    f.events += e.count;
  }
  f.title = "Xid " + std::to_string(code) + " on " + std::to_string(f.hosts.size()) +
            " hosts within " + std::to_string(f.last_unix_s - f.first_unix_s + 1) + " s: likely " +
            cause_of(code) + ", not one GPU";
  return f;
}

}  // namespace

std::vector<FleetFinding> correlate_xids(const std::vector<HostReport>& hosts) {
  std::vector<FleetFinding> found;
  for (auto& [code, events] : events_by_code(hosts)) {
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return a.t < b.t; });
    size_t i = 0;
    while (i < events.size()) {
      size_t j = i;
      while (j < events.size() && events[j].t - events[i].t <= kCorrelationWindowS) ++j;
      std::vector<Event> cluster(events.begin() + i, events.begin() + j);
      std::set<size_t> distinct;
      for (const Event& e : cluster) distinct.insert(e.host);
      if (distinct.size() >= 2) {
        found.push_back(finding_of(code, cluster, hosts));
        i = j;
      } else {
        ++i;
      }
    }
  }
  return found;
}

void apply_fleet_findings(const std::vector<FleetFinding>& found, std::vector<HostReport>& hosts) {
  for (const FleetFinding& f : found) {
    const std::string xid_id = xid_finding_id(f.code);
    for (HostReport& h : hosts) {
      if (std::find(f.hosts.begin(), f.hosts.end(), h.host) == f.hosts.end()) continue;
      if (!h.report.is_object() || !h.report.contains("findings")) continue;
      for (J& x : h.report["findings"])
        if (x.is_object() && x.value("id", J("")) == xid_id) {
          x["severity"] = "info";
          x["explained_by"] = f.id;
        }
      // The verdict follows what remains.
      int worst = 0;
      for (const J& x : h.report["findings"]) {
        std::string sev = x.is_object() && x.value("severity", J("")).is_string()
                              ? x["severity"].get<std::string>()
                              : "";
        worst = std::max(worst, sev == "critical" ? 2 : sev == "warning" ? 1 : 0);
      }
      if (h.verdict == "OK" || h.verdict == "WARNING" || h.verdict == "CRITICAL") {
        h.verdict = worst == 2 ? "CRITICAL" : worst == 1 ? "WARNING" : "OK";
        h.report["verdict"] = h.verdict;
      }
    }
  }
}

nlohmann::ordered_json fleet_findings_json(const std::vector<FleetFinding>& found) {
  J arr = J::array();
  for (const FleetFinding& f : found)
    arr.push_back(J{{"id", f.id},
                    {"severity", f.severity},
                    {"title", f.title},
                    {"code", f.code},
                    {"hosts", f.hosts},
                    {"first_time", format_utc(f.first_unix_s)},
                    {"last_time", format_utc(f.last_unix_s)},
                    {"events", f.events}});
  return arr;
}

}  // namespace gt
