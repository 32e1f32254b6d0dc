// Xid 13/31 across GPUs in one boot; see app_fault.h.
#include "checks/app_fault.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/checks.h"
#include "model/xid_catalog.h"

namespace gt {
namespace {

constexpr double kWindowS = 60;

using Entry = std::pair<const EventKey, EventGroup>;

/// An application fault of its own (the catalogue's application class, not
/// a consequence such as the channel reset that follows it).
bool app_fault_code(const EventKey& k) {
  const auto& [kind, code, bus, boot] = k;
  if (kind != EventKind::kXid || bus.empty()) return false;
  const XidFacts facts = xid_facts(code);
  return facts.cls == XidClass::kApplication && !facts.consequence;
}

/// The application's consequence Xids (43: the channel reset after a fault).
bool app_consequence(const EventKey& k) {
  const XidFacts facts = xid_facts(std::get<1>(k));
  return std::get<0>(k) == EventKind::kXid && facts.cls == XidClass::kApplication &&
         facts.consequence;
}

/// Two spans on one clock come within the window of each other.
bool near(const Span& a, const Span& b) {
  return a.wall == b.wall && std::max(a.first, b.first) - std::min(a.last, b.last) <= kWindowS;
}

/// Connected clusters of near groups (one boot); each cluster is a list of entries.
std::vector<std::vector<Entry*>> clusters(std::vector<Entry*> items) {
  std::vector<std::vector<Entry*>> out;
  while (!items.empty()) {
    std::vector<Entry*> c = {items.back()};
    items.pop_back();
    for (size_t i = 0; i < c.size(); ++i) {
      Span si = *span_of(c[i]->second);
      for (size_t j = items.size(); j-- > 0;) {
        if (!near(si, *span_of(items[j]->second))) continue;
        c.push_back(items[j]);
        items.erase(items.begin() + static_cast<long>(j));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string process_of(const KernelLogEvent& e) {
  if (e.pid && e.process_name) return fmt::format("pid {} ({})", *e.pid, *e.process_name);
  if (e.pid) return fmt::format("pid {}", *e.pid);
  return e.process_name ? *e.process_name : "";
}

/// Processes the cluster's lines name, else those of an Xid 43 (the channel
/// reset that follows a 13/31) on the same GPU and boot within the window.
std::set<std::string> processes(const std::vector<Entry*>& c,
                                const std::map<EventKey, EventGroup>& groups) {
  std::set<std::string> out;
  for (const Entry* e : c)
    for (const KernelLogEvent* ev : e->second.all)
      if (std::string p = process_of(*ev); !p.empty()) out.insert(p);
  if (!out.empty()) return out;
  for (const Entry* e : c) {
    const auto& [kind, code, bus, boot] = e->first;
    for (const auto& [key, grp] : groups) {
      if (!app_consequence(key) || std::get<2>(key) != bus || std::get<3>(key) != boot) continue;
      std::optional<Span> after = span_of(grp);
      if (!after || !near(*span_of(e->second), *after)) continue;
      for (const KernelLogEvent* ev : grp.all)
        if (std::string p = process_of(*ev); !p.empty()) out.insert(p);
    }
  }
  return out;
}

std::string gpu_words(const NodeSnapshot& s, const std::string& bus) {
  const GpuState* g = gpu_by_bus_id(s, bus);
  return g ? gpu_label(*g) : "GPU at " + normalize_pci_bus_id(bus);
}

Finding cluster_finding(const NodeSnapshot& s, const std::vector<Entry*>& c,
                        const std::map<EventKey, EventGroup>& groups) {
  std::set<std::string> gpus, procs = processes(c, groups);
  std::set<int> codes;
  std::string evidence;
  for (const Entry* e : c) {
    const auto& [kind, code, bus, boot] = e->first;
    gpus.insert(gpu_words(s, bus));
    codes.insert(code);
    evidence += fmt::format("{}{}: Xid {} x{}, first {}, last {}", evidence.empty() ? "" : "; ",
                            gpu_words(s, bus), code, with_commas(e->second.count),
                            first_when(*e->second.first), last_when(*e->second.last));
  }
  Finding f = node_finding("kernel_log.app_fault_many_gpus");
  f.severity = Severity::kWarning;
  f.title =
      fmt::format("Xid {} on {} GPUs within {:.0f} s ({}): likely the application, not the GPUs",
                  fmt::join(codes, "/"), gpus.size(), kWindowS, fmt::join(gpus, ", "));
  if (!procs.empty()) f.title += fmt::format(", {}", fmt::join(procs, ", "));
  f.evidence = evidence;
  f.action =
      "One job's bad memory access or illegal instruction hit several GPUs at once: fix or "
      "restart the job (debug it with compute-sanitizer or cuda-gdb); the GPUs need nothing. "
      "If it recurs with other, known-good jobs, run diagnostics (dcgmi diag -r 3).";
  for (int code : codes) f.joined_ids.push_back(xid_finding_id(code));
  f.xid_codes.assign(codes.begin(), codes.end());
  return f;
}

}  // namespace

std::vector<Finding> app_fault_many_gpus(const NodeSnapshot& s,
                                         std::map<EventKey, EventGroup>& groups) {
  std::map<LogBoot, std::vector<Entry*>> by_boot;
  for (Entry& e : groups)
    if (app_fault_code(e.first) && span_of(e.second)) by_boot[std::get<3>(e.first)].push_back(&e);
  std::vector<Finding> out;
  for (auto& [boot, items] : by_boot) {
    for (std::vector<Entry*>& c : clusters(items)) {
      std::set<std::string> buses;
      for (const Entry* e : c) buses.insert(std::get<2>(e->first));
      if (buses.size() < 2) continue;
      for (Entry* e : c) e->second.part_of_app_fault = true;
      out.push_back(cluster_finding(s, c, groups));
    }
  }
  return out;
}

}  // namespace gt
