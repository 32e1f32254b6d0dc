#include "fleet/drift.h"

#include <algorithm>
#include <map>
#include <set>

#include "checks/fingerprint_compare.h"

namespace gt {
namespace {

std::optional<std::string> on_off(const std::optional<bool>& b) {
  if (!b) return std::nullopt;
  return *b ? "on" : "off";
}

/// Folds the known per-GPU values of one host: "x" when all agree, else
/// "x on 7 GPUs, y on 1" (a host that differs within itself differs from
/// a uniform host too). Null when no GPU said.
std::optional<std::string> fold(const std::vector<std::string>& values) {
  if (values.empty()) return std::nullopt;
  std::map<std::string, int> n;
  for (const std::string& v : values) ++n[v];
  if (n.size() == 1) return n.begin()->first;
  std::vector<std::pair<std::string, int>> v(n.begin(), n.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [value, count] : v)
    s += (s.empty() ? "" : ", ") + value + " on " + std::to_string(count) + " GPU" +
         (count == 1 ? "" : "s");
  return s;
}

using GpuValue = std::optional<std::string> (*)(const GpuState& gpu);

std::optional<std::string> vbios(const GpuState& g) { return g.vbios_version; }
std::optional<std::string> power_limit(const GpuState& g) {
  if (!g.power_limit_w) return std::nullopt;
  char buf[32];
  snprintf(buf, sizeof buf, "%.0f W", *g.power_limit_w);
  return std::string(buf);
}
std::optional<std::string> pcie_gen(const GpuState& g) {
  if (!g.pcie.max_gen) return std::nullopt;
  return "gen " + std::to_string(*g.pcie.max_gen);
}
std::optional<std::string> ecc_mode(const GpuState& g) { return on_off(g.ecc_mode_current); }
std::optional<std::string> persistence(const GpuState& g) { return on_off(g.persistence_mode); }
std::optional<std::string> mig_mode(const GpuState& g) { return on_off(g.mig_mode_current); }
std::optional<std::string> mig_layout(const GpuState& g) {
  if (!g.mig_devices) return std::nullopt;
  std::vector<std::string> names;
  for (const MigDevice& d : *g.mig_devices) names.push_back(d.name.value_or("?"));
  std::sort(names.begin(), names.end());
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : " + ") + n;
  return s.empty() ? std::optional<std::string>("none") : s;
}

std::string model_of(const GpuState& g) { return g.name.value_or("unknown model"); }

struct GpuProperty {
  const char* name;
  GpuValue value;
  bool per_model;  ///< compared among GPUs of the same model only
};

const GpuProperty kGpuProperties[] = {
    {"vbios_version", vbios, true},           {"power_limit", power_limit, true},
    {"pcie_max_gen", pcie_gen, true},         {"ecc_mode", ecc_mode, false},
    {"persistence_mode", persistence, false}, {"mig_mode", mig_mode, false},
    {"mig_layout", mig_layout, true},
};

/// (property, sku) -> value, for one host.
using HostValues = std::map<std::pair<std::string, std::string>, std::optional<std::string>>;

void node_values(const NodeSnapshot& s, HostValues& out) {
  out[{"driver_version", ""}] = s.driver_version;
  out[{"nvml_library_version", ""}] = s.nvml.library_version;
  out[{"cuda_driver_version", ""}] = s.cuda_driver_version;
  out[{"kernel_module_version", ""}] = s.kernel_module_version;
  out[{"kernel_release", ""}] = s.kernel_release;
  out[{"gpu_count", ""}] = std::to_string(s.gpus.size());
  std::map<std::string, int> per;
  for (const GpuState& g : s.gpus) ++per[model_of(g)];
  std::string sku;
  for (const auto& [m, n] : per) sku += (sku.empty() ? "" : ", ") + std::to_string(n) + "x " + m;
  out[{"gpu_models", ""}] = sku.empty() ? std::optional<std::string>("no GPU") : sku;
}

void gpu_values(const NodeSnapshot& s, HostValues& out) {
  for (const GpuProperty& p : kGpuProperties) {
    std::map<std::string, std::vector<std::string>> by_model;
    std::set<std::string> models;
    for (const GpuState& g : s.gpus) {
      std::string model = p.per_model ? model_of(g) : "";
      models.insert(model);
      if (auto v = p.value(g)) by_model[model].push_back(*v);
    }
    for (const std::string& m : models)
      out[{p.name, m}] = by_model.count(m) ? fold(by_model[m]) : std::nullopt;
  }
}

/// A host with no report: its error (an unreadable or newer report is one,
/// in report_from_json's words).
std::optional<std::string> why_not_compared(const HostReport& h) {
  if (h.error) return "UNKNOWN: " + *h.error;
  if (!h.report) return std::string("no report");
  return std::nullopt;
}

DriftProperty judge_property(
    const std::string& name, const std::string& sku,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& per_host) {
  DriftProperty p;
  p.property = name;
  if (!sku.empty()) p.sku = sku;
  std::map<std::string, std::vector<std::string>> hosts_by_value;
  for (const auto& [host, v] : per_host) {
    if (v)
      hosts_by_value[*v].push_back(host);
    else
      p.unknown_hosts.push_back(host);
  }
  std::vector<DriftValue> values;
  for (auto& [v, hosts] : hosts_by_value) values.push_back({v, hosts});
  std::stable_sort(values.begin(), values.end(),
                   [](auto& a, auto& b) { return a.hosts.size() > b.hosts.size(); });
  if (values.size() >= 2 && values[0].hosts.size() == values[1].hosts.size()) {
    p.others = values;  // a tie: no majority to name
  } else if (!values.empty()) {
    p.majority = values.front();
    p.others.assign(values.begin() + 1, values.end());
  }
  return p;
}

}  // namespace

HostOwnPast own_past_of(const HostReport& h) {
  HostOwnPast p;
  p.host = h.host;
  if (!h.report) {
    p.why = "no report";
    return p;
  }
  const NodeSnapshot& s = h.report->snapshot;
  if (!s.fingerprint || !s.history) {
    p.why = "no record";  // gathered or captured here, or a run without a record
    return p;
  }
  const FingerprintBaseline b = fingerprint_baseline(*s.history);
  if (!b.print) {
    p.state = OwnPastState::kNoEarlierRun;
    return p;
  }
  p.state = OwnPastState::kCompared;
  p.baseline_boot_id = b.boot_id;
  p.baseline_this_boot = b.this_boot;
  p.baseline_unix_s = b.taken_unix_s;
  p.baseline_when = b.when;
  p.changes = compare_fingerprints(*b.print, *s.fingerprint);
  return p;
}

DriftReport find_drift(const std::vector<HostReport>& hosts) {
  DriftReport d;
  std::vector<std::pair<std::string, HostValues>> compared;
  for (const HostReport& h : hosts) {
    d.own_past.push_back(own_past_of(h));
    if (auto why = why_not_compared(h)) {
      d.not_compared.push_back({h.host, *why});
      continue;
    }
    HostValues v;
    node_values(h.report->snapshot, v);
    gpu_values(h.report->snapshot, v);
    compared.emplace_back(h.host, std::move(v));
  }
  d.hosts_compared = compared.size();
  // Every (property, sku) any host has, in a stable order.
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [host, v] : compared)
    for (const auto& [k, value] : v) keys.insert(k);
  for (const auto& [name, sku] : keys) {
    std::vector<std::pair<std::string, std::optional<std::string>>> per_host;
    for (const auto& [host, v] : compared) {
      auto it = v.find({name, sku});
      if (it != v.end()) per_host.emplace_back(host, it->second);  // hosts with that model
    }
    DriftProperty p = judge_property(name, sku, per_host);
    if (!p.others.empty()) d.differing.push_back(std::move(p));
  }
  return d;
}

}  // namespace gt
