#include "fleet/correlate.h"

#include <algorithm>
#include <map>
#include <set>

#include "checks/registry.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

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

struct Event {
  int64_t t;
  size_t host;
  uint64_t count;
};

/// code -> events with a wall time, over every host.
std::map<int, std::vector<Event>> events_by_code(const std::vector<HostReport>& hosts) {
  std::map<int, std::vector<Event>> out;
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (!hosts[h].report || !hosts[h].report->snapshot.kernel_log) continue;
    for (const KernelLogEvent& e : hosts[h].report->snapshot.kernel_log->events) {
      if (!e.code || !e.time_unix_s || !cause_of(*e.code)) continue;
      out[*e.code].push_back({*e.time_unix_s, h, std::max<uint64_t>(e.count, 1)});
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
      if (!h.report || std::find(f.hosts.begin(), f.hosts.end(), h.host) == f.hosts.end()) continue;
      for (Finding& x : h.report->findings)
        if (x.id == xid_id) {
          x.severity = Severity::kInfo;
          x.explained_by = f.id;
        }
      // The verdict follows what remains, by the rule judge() applies.
      h.report->verdict = verdict_of(h.report->findings);
    }
  }
}

}  // namespace gt
