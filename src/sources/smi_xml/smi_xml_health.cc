// Element names as nvidia-smi prints them (nvml-abi.md 8.11):
//   gpu_recovery_action              "None" (570, 590)
//   gpu_reset_status/*               "No"/"N/A" (535, 536); the deprecation
//                                    sentence (570); absent (590)
//   fabric/{state,status}            "N/A" on every PCIe board (535+)
//   fabric/{cliqueId,clusterUuid}, fabric/health/*   570+; summary and
//                                    incorrect_configuration 590
//   temperature/gpu_temp_*_threshold absolute C before Ada; on Ada+ the
//                                    *_tlimit_threshold forms and
//                                    gpu_temp_tlimit, degrees below T.Limit
//                                    (a threshold of -2 C: 2 C above it)
//   clocks_event_reasons_counters/*  "31637354094 us" (590)
//   row_remapper_histogram/*         "192 bank(s)" (515+)
//   mig_devices                      "None", or mig_device entries (A100 510)
#include "sources/smi_xml/smi_xml_health.h"

#include <string>

#include "sources/smi_xml/smi_words.h"

namespace gt {
namespace {

template <typename F>
auto mapped(const std::optional<std::string>& text, F f) -> decltype(f(std::string_view{})) {
  if (!text) return std::nullopt;
  return f(*text);
}

}  // namespace

void read_smi_recovery(GpuReader& r) {
  RecoveryState& rs = r.gpu().recovery;
  if (std::optional<std::string> w = r.word("gpu_recovery_action")) {
    rs.action = smi_recovery_action(*w);
    rs.action_text = *w;
  }
  rs.reset_required = r.yes_no("gpu_reset_status/reset_required");
  rs.drain_and_reset_recommended = r.yes_no("gpu_reset_status/drain_and_reset_recommended");
}

void read_smi_fabric(GpuReader& r) {
  std::optional<std::string> state = r.text("fabric/state");
  if (!state) return;  // N/A, Not Supported, absent: no fabric
  FabricInfo f;
  f.state = smi_fabric_state(*state);
  f.status = mapped(r.text("fabric/status"), smi_fabric_status);
  f.clique_id = r.text("fabric/cliqueId");
  f.cluster_uuid = r.text("fabric/clusterUuid");
  f.health_summary = mapped(r.text("fabric/health/summary"), smi_fabric_summary);
  f.bandwidth_degraded = mapped(r.text("fabric/health/bandwidth"), smi_fabric_condition);
  f.route_recovery_in_progress =
      mapped(r.text("fabric/health/route_recovery_in_progress"), smi_fabric_condition);
  f.route_unhealthy = mapped(r.text("fabric/health/route_unhealthy"), smi_fabric_condition);
  f.access_timeout_recovery =
      mapped(r.text("fabric/health/access_timeout_recovery"), smi_fabric_condition);
  f.incorrect_configuration =
      mapped(r.word("fabric/health/incorrect_configuration"), smi_fabric_incorrect_configuration);
  r.gpu().fabric = std::move(f);
}

void read_smi_thermal(GpuReader& r) {
  ThermalState& t = r.gpu().thermal;
  t.memory_temperature_c = r.celsius("temperature/memory_temp");
  // Absolute thresholds only: the *_tlimit_threshold numbers are on the
  // T.Limit scale and never go here.
  t.shutdown_threshold_c = r.celsius("temperature/gpu_temp_max_threshold");
  t.slowdown_threshold_c = r.celsius("temperature/gpu_temp_slow_threshold");
  t.gpu_max_threshold_c = r.celsius("temperature/gpu_temp_max_gpu_threshold");
  t.memory_max_threshold_c = r.celsius("temperature/gpu_temp_max_mem_threshold");
  // Both T.Limit numbers count degrees below T.Limit, so their difference is
  // the distance to slowdown (43 below, slowdown at -2: 45 C left).
  std::optional<int32_t> below = r.celsius("temperature/gpu_temp_tlimit");
  std::optional<int32_t> slow_below = r.celsius("temperature/gpu_temp_slow_tlimit_threshold");
  const std::optional<int32_t>& temp = r.gpu().temperature_c;
  if (below && slow_below)
    t.slowdown_margin_c = *below - *slow_below;
  else if (t.slowdown_threshold_c && temp)
    t.slowdown_margin_c = *t.slowdown_threshold_c - *temp;
}

void read_smi_limit_counters(GpuReader& r) {
  LimitTime& l = r.gpu().limit_time;
  const std::string p = "clocks_event_reasons_counters/clocks_event_reasons_counters_";
  l.sw_power_cap_total_us = r.count((p + "sw_power_cap").c_str());
  l.sync_boost_total_us = r.count((p + "sync_boost").c_str());
  l.sw_thermal_total_us = r.count((p + "sw_therm_slowdown").c_str());
  l.hw_thermal_total_us = r.count((p + "hw_therm_slowdown").c_str());
  l.hw_power_brake_total_us = r.count((p + "hw_power_brake").c_str());
}

void read_smi_row_histogram(GpuReader& r) {
  const std::string p = "remapped_rows/row_remapper_histogram/row_remapper_histogram_";
  RowRemapperHistogram h;
  h.max = r.u32((p + "max").c_str());
  h.high = r.u32((p + "high").c_str());
  h.partial = r.u32((p + "partial").c_str());
  h.low = r.u32((p + "low").c_str());
  h.none = r.u32((p + "none").c_str());
  if (h.max || h.high || h.partial || h.low || h.none) r.gpu().row_remapper_histogram = h;
}

namespace {

MigDevice read_mig_device(pugi::xml_node node, uint32_t position, GpuState& g) {
  GpuReader m(node, g);
  MigDevice d;
  d.index = m.u32("index").value_or(position);
  d.gpu_instance_id = m.u32("gpu_instance_id");
  d.compute_instance_id = m.u32("compute_instance_id");
  d.uuid = m.text("uuid");
  d.memory_total_bytes = m.mib("fb_memory_usage/total");
  d.memory_reserved_bytes = m.mib("fb_memory_usage/reserved");
  d.memory_used_bytes = m.mib("fb_memory_usage/used");
  d.memory_free_bytes = m.mib("fb_memory_usage/free");
  d.multiprocessor_count = m.u32("device_attributes/shared/multiprocessor_count");
  d.volatile_sram_uncorrectable = m.count("ecc_error_count/volatile_count/sram_uncorrectable");
  return d;
}

}  // namespace

void read_smi_mig_devices(GpuReader& r) {
  std::vector<MigDevice> out;
  uint32_t position = 0;
  for (pugi::xml_node d : r.node().child("mig_devices").children("mig_device"))
    out.push_back(read_mig_device(d, position++, r.gpu()));
  if (!out.empty()) r.gpu().mig_devices = std::move(out);
}

}  // namespace gt
