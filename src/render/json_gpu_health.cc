#include "render/json_gpu_health.h"

#include <cstdio>

#include "render/json_util.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_util::hex_opt;
using json_util::name_opt;
using json_util::opt;

J recovery_json(const RecoveryState& r) {
  return J{{"action", name_opt(r.action, recovery_action_name)},
           {"action_code", opt(r.action_code)},
           {"action_text", opt(r.action_text)},
           {"reset_required", opt(r.reset_required)},
           {"drain_and_reset_recommended", opt(r.drain_and_reset_recommended)},
           {"flags_from_deprecated_fields", r.flags_from_deprecated_fields}};
}

J histogram_json(const std::optional<RowRemapperHistogram>& h) {
  if (!h) return nullptr;
  return J{{"max", opt(h->max)},
           {"high", opt(h->high)},
           {"partial", opt(h->partial)},
           {"low", opt(h->low)},
           {"none", opt(h->none)}};
}

J fabric_json(const std::optional<FabricInfo>& f) {
  if (!f) return nullptr;
  J mask = hex_opt(f->health_mask ? std::optional<uint64_t>(*f->health_mask) : std::nullopt, 8);
  J state = nullptr;
  if (f->state) state = name_with_code(fabric_state_name(*f->state), f->state_code);
  J summary = nullptr;
  if (f->health_summary)
    summary =
        name_with_code(fabric_health_summary_name(*f->health_summary), f->health_summary_code);
  return J{{"state", state},
           {"status", opt(f->status)},
           {"clique_id", opt(f->clique_id)},
           {"cluster_uuid", opt(f->cluster_uuid)},
           {"health_mask", mask},
           {"health",
            {{"bandwidth_degraded", opt(f->bandwidth_degraded)},
             {"route_recovery_in_progress", opt(f->route_recovery_in_progress)},
             {"route_unhealthy", opt(f->route_unhealthy)},
             {"access_timeout_recovery", opt(f->access_timeout_recovery)},
             {"incorrect_configuration", opt(f->incorrect_configuration)},
             {"summary", summary}}}};
}

J counters_json(const NvLinkCounters& c) {
  return J{{"crc_flit", opt(c.crc_flit)},
           {"crc_data", opt(c.crc_data)},
           {"replay", opt(c.replay)},
           {"recovery", opt(c.recovery)}};
}

J nvlinks_json(const std::optional<std::vector<NvLink>>& links) {
  if (!links) return nullptr;
  J arr = J::array();
  for (const NvLink& l : *links) {
    arr.push_back(J{{"link", l.link},
                    {"active", opt(l.active)},
                    {"version", opt(l.version)},
                    {"remote_pci_bus_id", opt(l.remote_pci_bus_id)},
                    {"remote_device_type", opt(l.remote_device_type)},
                    {"errors", counters_json(l.errors)},
                    {"errors_growth", counters_json(l.errors_growth)}});
  }
  return arr;
}

J peers_json(const std::optional<std::vector<GpuPeer>>& peers) {
  if (!peers) return nullptr;
  J arr = J::array();
  for (const GpuPeer& p : *peers) {
    arr.push_back(J{{"index", p.index},
                    {"level", opt(p.level)},
                    {"p2p",
                     {{"read", opt(p.p2p_read)},
                      {"write", opt(p.p2p_write)},
                      {"nvlink", opt(p.p2p_nvlink)},
                      {"atomics", opt(p.p2p_atomics)}}}});
  }
  return arr;
}

J thermal_json(const GpuState& g) {
  const ThermalState& t = g.thermal;
  return J{{"gpu_c", opt(g.temperature_c)},
           {"memory_c", opt(t.memory_temperature_c)},
           {"slowdown_margin_c", opt(t.slowdown_margin_c)},
           {"thresholds",
            {{"shutdown_c", opt(t.shutdown_threshold_c)},
             {"slowdown_c", opt(t.slowdown_threshold_c)},
             {"gpu_max_c", opt(t.gpu_max_threshold_c)},
             {"memory_max_c", opt(t.memory_max_threshold_c)}}}};
}

J limit_time_json(const LimitTime& l) {
  return J{{"share_of_window",
            {{"sw_power_cap", opt(l.sw_power_cap_share)},
             {"sync_boost", opt(l.sync_boost_share)},
             {"board_limit", opt(l.board_limit_share)},
             {"low_utilization", opt(l.low_utilization_share)},
             {"reliability", opt(l.reliability_share)},
             {"sw_thermal", opt(l.sw_thermal_share)},
             {"hw_thermal", opt(l.hw_thermal_share)},
             {"hw_power_brake", opt(l.hw_power_brake_share)}}},
           {"total_us",
            {{"sw_power_cap", opt(l.sw_power_cap_total_us)},
             {"sync_boost", opt(l.sync_boost_total_us)},
             {"sw_thermal", opt(l.sw_thermal_total_us)},
             {"hw_thermal", opt(l.hw_thermal_total_us)},
             {"hw_power_brake", opt(l.hw_power_brake_total_us)}}}};
}

J reason_samples_json(const std::vector<uint64_t>& samples) {
  J arr = J::array();
  for (uint64_t m : samples) arr.push_back(hex_opt(m, 16));
  return arr;
}

/// Processes of one MIG device: the parent's with the same instance ids.
J mig_pids(const GpuState& g, const MigDevice& m) {
  J arr = J::array();
  if (!g.processes) return nullptr;
  for (const GpuProcess& p : *g.processes)
    if (p.gpu_instance_id && p.gpu_instance_id == m.gpu_instance_id &&
        (!m.compute_instance_id || p.compute_instance_id == m.compute_instance_id))
      arr.push_back(p.pid);
  return arr;
}

J mig_devices_json(const GpuState& g) {
  if (!g.mig_devices) return nullptr;
  J arr = J::array();
  for (const MigDevice& m : *g.mig_devices) {
    arr.push_back(J{{"index", m.index},
                    {"gpu_instance_id", opt(m.gpu_instance_id)},
                    {"compute_instance_id", opt(m.compute_instance_id)},
                    {"uuid", opt(m.uuid)},
                    {"name", opt(m.name)},
                    {"memory",
                     {{"total_bytes", opt(m.memory_total_bytes)},
                      {"used_bytes", opt(m.memory_used_bytes)},
                      {"free_bytes", opt(m.memory_free_bytes)},
                      {"reserved_bytes", opt(m.memory_reserved_bytes)}}},
                    {"multiprocessor_count", opt(m.multiprocessor_count)},
                    {"volatile_sram_uncorrectable", opt(m.volatile_sram_uncorrectable)},
                    {"process_pids", mig_pids(g, m)}});
  }
  return arr;
}

}  // namespace

void add_gpu_health_json(const GpuState& g, nlohmann::ordered_json& j) {
  j["recovery"] = recovery_json(g.recovery);
  j["row_remapper_histogram"] = histogram_json(g.row_remapper_histogram);
  j["fabric"] = fabric_json(g.fabric);
  j["nvlinks"] = nvlinks_json(g.nvlinks);
  j["peers"] = peers_json(g.peers);
  j["thermal"] = thermal_json(g);
  j["limit_time"] = limit_time_json(g.limit_time);
  j["clocks_event_reasons_samples"] = reason_samples_json(g.clock_event_reasons_samples);
  j["mig_devices"] = mig_devices_json(g);
}

}  // namespace gt
