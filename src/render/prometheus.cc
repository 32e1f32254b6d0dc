#include "render/prometheus.h"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "checks/catalogue.h"
#include "render/prometheus_cuda_probe.h"
#include "render/prometheus_metrics.h"
#include "render/prometheus_servers.h"
#include "util/terminal_text.h"

namespace gt {
namespace {

/// Help text escaped for "# HELP" (\\ and \n).
std::string escape_help(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

/// A label value is shown (for_terminal) before the text format's escaping:
/// valid UTF-8 (Prometheus refuses a scrape with an invalid byte in a label)
/// and no control character for a terminal that reads /metrics.
std::string render_labels(const MetricLabels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += labels[i].first + "=\"" + escape_label_value(for_terminal(labels[i].second)) + "\"";
  }
  return out + "}";
}

/// Adds `key` only when the value is known and not empty.
void add_label(MetricLabels& l, const char* key, const std::optional<std::string>& v) {
  if (v && !v->empty()) l.emplace_back(key, *v);
}

MetricLabels with(MetricLabels base, const char* key, const std::string& v) {
  base.emplace_back(key, v);
  return base;
}

MetricLabels node_labels(const NodeSnapshot& s) {
  MetricLabels l;
  add_label(l, "Hostname", s.hostname);
  return l;
}

/// dcgm-exporter's per-GPU label keys, in its order.
MetricLabels gpu_labels(const NodeSnapshot& s, const GpuState& g) {
  MetricLabels l = {{"gpu", std::to_string(g.index)}};
  add_label(l, "UUID", g.uuid);
  add_label(l, "pci_bus_id", g.pci_bus_id);
  add_label(l, "modelName", g.name);
  add_label(l, "Hostname", s.hostname);
  return l;
}

template <typename T>
void add_opt(MetricSet& set, const char* name, const MetricLabels& l, const std::optional<T>& v,
             double scale = 1.0) {
  if (v) set.add(name, l, static_cast<double>(*v) * scale);
}

/// No critical finding of the CUDA plan stage (the readiness rows,
/// checks/catalogue.h): CUDA and NCCL are predicted to start.
bool cuda_ready(const Report& r) {
  for (const Finding& f : r.findings)
    if (f.severity == Severity::kCritical && plan_stage(f.id) == PlanStage::kCuda) return false;
  return true;
}

void add_node_metrics(const Report& r, const PrometheusContext& ctx, MetricSet& set) {
  const NodeSnapshot& s = r.snapshot;
  const MetricLabels node = node_labels(s);
  set.add("gpu_triage_build_info", with(node, "version", ctx.version), 1);
  MetricLabels drv = node;
  add_label(drv, "driver_version", s.driver_version);
  add_label(drv, "cuda_driver_version", s.cuda_driver_version);
  add_label(drv, "nvml_version", s.nvml_version);
  add_label(drv, "kernel_module_version", s.kernel_module_version);
  add_label(drv, "nvml_library_version", s.nvml.library_version);
  if (drv.size() > node.size()) set.add("gpu_triage_driver_info", drv, 1);
  set.add("gpu_triage_nvml_up", node, s.nvml.initialized ? 1 : 0);
  std::string verdict = verdict_word(r);
  for (const char* v : {"OK", "WARNING", "CRITICAL", "UNKNOWN"}) {
    std::string lower = v;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    set.add("gpu_triage_verdict", with(node, "verdict", lower), verdict == v ? 1 : 0);
  }
  if (s.cuda) set.add("gpu_triage_cuda_ready", node, cuda_ready(r) ? 1 : 0);
  add_opt(set, "gpu_triage_gpus", node, s.gpu_count);
  set.add("gpu_triage_pci_gpus", node, static_cast<double>(s.pci_devices.size()));
  set.add("gpu_triage_sample_window_seconds", node, s.sample_window_s);
  add_opt(set, "gpu_triage_collection_duration_seconds", node, ctx.collection_duration_s);
  if (s.collected_at_unix_ms > 0)
    set.add("gpu_triage_collection_timestamp_seconds", node, s.collected_at_unix_ms / 1000.0);
}

void add_finding_metrics(const Report& r, MetricSet& set) {
  const NodeSnapshot& s = r.snapshot;
  std::map<Severity, int> per_severity = {
      {Severity::kOk, 0}, {Severity::kInfo, 0}, {Severity::kWarning, 0}, {Severity::kCritical, 0}};
  for (const Finding& f : r.findings) {
    ++per_severity[f.severity];
    MetricLabels l = {{"id", f.id}, {"severity", severity_name(f.severity)}};
    const Subject& sub = f.subject;
    // A GPU's UUID and bus id as its own series write them (NVML's bus id
    // form), so findings join with them; else what the subject says.
    std::optional<std::string> uuid = sub.gpu_uuid, bus = sub.pci_bus_id;
    if (sub.gpu_index) {
      l.emplace_back("gpu", std::to_string(*sub.gpu_index));
      for (const GpuState& g : s.gpus) {
        if (g.index != *sub.gpu_index) continue;
        if (g.uuid) uuid = g.uuid;
        if (g.pci_bus_id) bus = g.pci_bus_id;
      }
    }
    add_label(l, "UUID", uuid);
    add_label(l, "pci_bus_id", bus);
    if (sub.pid) l.emplace_back("pid", std::to_string(*sub.pid));
    add_label(l, "path", sub.path);
    add_label(l, "Hostname", s.hostname);
    set.add("gpu_triage_finding", l, 1);
  }
  for (const auto& [sev, n] : per_severity)
    set.add("gpu_triage_findings", with(node_labels(s), "severity", severity_name(sev)), n);
}

void add_kernel_log_metrics(const NodeSnapshot& s, MetricSet& set) {
  if (!s.kernel_log) return;
  const MetricLabels node = node_labels(s);
  for (const KernelLog::Source& src : s.kernel_log->sources)
    set.add("gpu_triage_kernel_log_source_up",
            with(with(node, "source", src.name), "boot", log_boot_name(src.boot)),
            src.read ? 1 : 0);
  for (const KernelLogEvent& e : s.kernel_log->events) {
    MetricLabels l = with(node, "kind", event_kind_name(e.kind));
    if (e.code) l.emplace_back("code", std::to_string(*e.code));
    l.emplace_back("boot", log_boot_name(e.boot));
    set.add("gpu_triage_kernel_log_events", l, 1);
  }
}

void add_disk_metrics(const NodeSnapshot& s, MetricSet& set) {
  for (const DiskUsage& d : s.disks) {
    MetricLabels l = with(node_labels(s), "path", d.path);
    add_opt(set, "gpu_triage_disk_size_bytes", l, d.total_bytes);
    add_opt(set, "gpu_triage_disk_available_bytes", l, d.available_bytes);
    add_opt(set, "gpu_triage_disk_inodes", l, d.inodes_total);
    add_opt(set, "gpu_triage_disk_inodes_available", l, d.inodes_available);
  }
}

void add_gpu_state_metrics(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  MetricLabels info = l;
  add_label(info, "serial", g.serial);
  set.add("gpu_triage_gpu_info", info, 1);
  set.add("gpu_triage_gpu_up", l, g.status == GpuStatus::kOk ? 1 : 0);
  for (GpuStatus st :
       {GpuStatus::kOk, GpuStatus::kLost, GpuStatus::kUnresponsive, GpuStatus::kInaccessible})
    set.add("gpu_triage_gpu_status", with(l, "status", gpu_status_name(st)), g.status == st);
}

void add_gpu_gauges(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  add_opt(set, "gpu_triage_gpu_memory_total_bytes", l, g.memory_total_bytes);
  add_opt(set, "gpu_triage_gpu_memory_used_bytes", l, g.memory_used_bytes);
  add_opt(set, "gpu_triage_gpu_memory_free_bytes", l, g.memory_free_bytes);
  add_opt(set, "gpu_triage_gpu_memory_reserved_bytes", l, g.memory_reserved_bytes);
  if (g.utilization_gpu_pct) {
    set.add("gpu_triage_gpu_utilization_ratio", l, g.utilization_gpu_pct->mean / 100.0);
    set.add("gpu_triage_gpu_utilization_max_ratio", l, g.utilization_gpu_pct->max / 100.0);
  }
  if (g.utilization_memory_pct)
    set.add("gpu_triage_gpu_memory_utilization_ratio", l, g.utilization_memory_pct->mean / 100.0);
  add_opt(set, "gpu_triage_gpu_temperature_celsius", l, g.temperature_c);
  add_opt(set, "gpu_triage_gpu_power_draw_watts", l, g.power_draw_w);
  add_opt(set, "gpu_triage_gpu_power_limit_watts", l, g.power_limit_w);
  add_opt(set, "gpu_triage_gpu_pstate", l, g.pstate);
  add_opt(set, "gpu_triage_gpu_fan_speed_ratio", l, g.fan_speed_pct, 0.01);
  add_opt(set, "gpu_triage_gpu_persistence_mode_enabled", l, g.persistence_mode);
  add_opt(set, "gpu_triage_gpu_mig_mode_enabled", l, g.mig_mode_current);
  add_opt(set, "gpu_triage_gpu_ecc_mode_enabled", l, g.ecc_mode_current);
  if (g.processes) set.add("gpu_triage_gpu_processes", l, static_cast<double>(g.processes->size()));
}

void add_gpu_memory_errors(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  const char* vol = "gpu_triage_gpu_ecc_volatile_errors_total";
  const char* agg = "gpu_triage_gpu_ecc_aggregate_errors_total";
  add_opt(set, vol, with(l, "type", "corrected"), g.ecc.volatile_corrected);
  add_opt(set, vol, with(l, "type", "uncorrected"), g.ecc.volatile_uncorrected);
  add_opt(set, agg, with(l, "type", "corrected"), g.ecc.aggregate_corrected);
  add_opt(set, agg, with(l, "type", "uncorrected"), g.ecc.aggregate_uncorrected);
  const char* retired = "gpu_triage_gpu_retired_pages_total";
  add_opt(set, retired, with(l, "cause", "single_bit"), g.retired_pages.single_bit);
  add_opt(set, retired, with(l, "cause", "double_bit"), g.retired_pages.double_bit);
  add_opt(set, "gpu_triage_gpu_retired_pages_pending", l, g.retired_pages.pending);
  const char* remap = "gpu_triage_gpu_remapped_rows_total";
  add_opt(set, remap, with(l, "type", "correctable"), g.remapped_rows.correctable);
  add_opt(set, remap, with(l, "type", "uncorrectable"), g.remapped_rows.uncorrectable);
  add_opt(set, "gpu_triage_gpu_remapped_rows_pending", l, g.remapped_rows.pending);
  add_opt(set, "gpu_triage_gpu_remapped_rows_failure", l, g.remapped_rows.failure);
}

void add_gpu_link_and_clocks(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  add_opt(set, "gpu_triage_gpu_pcie_link_gen_current", l, g.pcie.current_gen);
  add_opt(set, "gpu_triage_gpu_pcie_link_gen_max", l, g.pcie.max_gen);
  add_opt(set, "gpu_triage_gpu_pcie_link_width_current", l, g.pcie.current_width);
  add_opt(set, "gpu_triage_gpu_pcie_link_width_max", l, g.pcie.max_width);
  add_opt(set, "gpu_triage_gpu_pcie_replays_total", l, g.pcie.replay_counter);
  if (!g.clock_event_reasons) return;
  // Every supported reason (0 or 1); without the supported mask, the active ones.
  uint64_t shown = g.clock_event_reasons_supported.value_or(0) | *g.clock_event_reasons;
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t b = uint64_t{1} << bit;
    if (!(shown & b)) continue;
    set.add("gpu_triage_gpu_clock_event_active",
            with(l, "reason", clock_event_reason_names(b).front()),
            (*g.clock_event_reasons & b) ? 1 : 0);
  }
}

void add_fabric_and_links(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  if (g.fabric && g.fabric->state && *g.fabric->state != FabricState::kNotSupported) {
    const FabricInfo& f = *g.fabric;
    set.add("gpu_triage_gpu_fabric_registered", l,
            f.state == FabricState::kCompleted && f.status.value_or("success") == "success");
    bool bad =
        f.bandwidth_degraded.value_or(false) || f.route_unhealthy.value_or(false) ||
        f.route_recovery_in_progress.value_or(false) || f.access_timeout_recovery.value_or(false) ||
        f.incorrect_configuration.value_or("none") != "none" ||
        f.health_summary.value_or(FabricHealthSummary::kHealthy) != FabricHealthSummary::kHealthy;
    set.add("gpu_triage_gpu_fabric_healthy", l, bad ? 0 : 1);
  }
  if (!g.nvlinks) return;
  double active = 0, inactive = 0;
  NvLinkCounters sum;
  auto acc = [](std::optional<uint64_t>& into, const std::optional<uint64_t>& v) {
    if (v) into = into.value_or(0) + *v;
  };
  for (const NvLink& k : *g.nvlinks) {
    if (k.active) (*k.active ? active : inactive) += 1;
    acc(sum.crc_flit, k.errors.crc_flit);
    acc(sum.crc_data, k.errors.crc_data);
    acc(sum.replay, k.errors.replay);
    acc(sum.recovery, k.errors.recovery);
  }
  set.add("gpu_triage_gpu_nvlinks", with(l, "state", "active"), active);
  set.add("gpu_triage_gpu_nvlinks", with(l, "state", "inactive"), inactive);
  const char* e = "gpu_triage_gpu_nvlink_errors_total";
  add_opt(set, e, with(l, "type", "crc_flit"), sum.crc_flit);
  add_opt(set, e, with(l, "type", "crc_data"), sum.crc_data);
  add_opt(set, e, with(l, "type", "replay"), sum.replay);
  add_opt(set, e, with(l, "type", "recovery"), sum.recovery);
}

void add_driver_signals(const GpuState& g, const MetricLabels& l, MetricSet& set) {
  if (g.recovery.action)
    set.add("gpu_triage_gpu_recovery_action",
            with(l, "action", recovery_action_name(*g.recovery.action)), 1);
  if (const auto& h = g.row_remapper_histogram) {
    const char* b = "gpu_triage_gpu_row_remapper_banks";
    add_opt(set, b, with(l, "spare", "max"), h->max);
    add_opt(set, b, with(l, "spare", "high"), h->high);
    add_opt(set, b, with(l, "spare", "partial"), h->partial);
    add_opt(set, b, with(l, "spare", "low"), h->low);
    add_opt(set, b, with(l, "spare", "none"), h->none);
  }
  add_fabric_and_links(g, l, set);
  add_opt(set, "gpu_triage_gpu_thermal_margin_celsius", l, g.thermal.slowdown_margin_c);
  add_opt(set, "gpu_triage_gpu_memory_temperature_celsius", l, g.thermal.memory_temperature_c);
  const LimitTime& t = g.limit_time;
  const std::pair<const char*, const std::optional<double>*> shares[] = {
      {"sw_power_cap", &t.sw_power_cap_share}, {"sync_boost", &t.sync_boost_share},
      {"board_limit", &t.board_limit_share},   {"low_utilization", &t.low_utilization_share},
      {"reliability", &t.reliability_share},   {"sw_thermal", &t.sw_thermal_share},
      {"hw_thermal", &t.hw_thermal_share},     {"hw_power_brake", &t.hw_power_brake_share}};
  for (const auto& [name, v] : shares)
    add_opt(set, "gpu_triage_gpu_clock_limit_ratio", with(l, "limit", name), *v);
  if (g.mig_devices)
    set.add("gpu_triage_gpu_mig_devices", l, static_cast<double>(g.mig_devices->size()));
}

}  // namespace

void MetricSet::add(const std::string& name, const MetricLabels& labels, double value) {
  if (find_metric_spec(name) == nullptr)
    throw std::logic_error("metric " + name + " is not in prometheus_metric_specs()");
  std::string rendered = render_labels(labels);
  std::vector<Sample>& samples = metrics_[name];
  auto [it, inserted] = index_.try_emplace(name + rendered, samples.size());
  if (inserted)
    samples.push_back({std::move(rendered), value});
  else
    samples[it->second].value += value;
}

void MetricSet::write(std::ostream& out) const {
  for (const MetricSpec& spec : prometheus_metric_specs()) {
    auto it = metrics_.find(std::string(spec.name));
    if (it == metrics_.end()) continue;
    out << "# HELP " << spec.name << " " << escape_help(spec.help) << "\n";
    out << "# TYPE " << spec.name << " " << spec.type << "\n";
    for (const Sample& s : it->second)
      out << spec.name << s.labels << " " << format_metric_value(s.value) << "\n";
  }
}

void add_report_metrics(const Report& r, const PrometheusContext& ctx, MetricSet& set) {
  const NodeSnapshot& s = r.snapshot;
  add_node_metrics(r, ctx, set);
  add_finding_metrics(r, set);
  add_kernel_log_metrics(s, set);
  add_disk_metrics(s, set);
  add_server_metrics(s, set);
  if (s.cuda_probe) add_cuda_probe_metrics(*s.cuda_probe, s.hostname, set);
  for (const GpuState& g : s.gpus) {
    const MetricLabels l = gpu_labels(s, g);
    add_gpu_state_metrics(g, l, set);
    add_gpu_gauges(g, l, set);
    add_gpu_memory_errors(g, l, set);
    add_gpu_link_and_clocks(g, l, set);
    add_driver_signals(g, l, set);
  }
}

void add_serve_metrics(const ServeMetrics& m, const std::optional<std::string>& hostname,
                       MetricSet& set) {
  MetricLabels l;
  add_label(l, "Hostname", hostname);
  add_opt(set, "gpu_triage_report_age_seconds", l, m.report_age_s);
  set.add("gpu_triage_collection_in_progress", l, m.collection_in_progress ? 1 : 0);
  set.add("gpu_triage_collections_total", l, static_cast<double>(m.collections));
  set.add("gpu_triage_collections_abandoned_total", l,
          static_cast<double>(m.collections_abandoned));
  set.add("gpu_triage_collector_halted", l, m.collector_halted ? 1 : 0);
}

std::string render_prometheus(const Report& report, const PrometheusContext& ctx) {
  MetricSet set;
  add_report_metrics(report, ctx, set);
  std::ostringstream out;
  set.write(out);
  return out.str();
}

std::string format_metric_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string escape_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace gt
