// One GPU of a report read back (gpus[] in docs/json.md): the inverse of
// gpu_json in json_report.cc and of json_gpu_health.cc, in their order.
#include <charconv>

#include "render/json_read.h"

namespace gt::json_read {
namespace {

SampleStats stats_of(const J& j, const std::string& path) {
  Obj o(j, path);
  SampleStats s;
  o.get("min", s.min);
  o.get("mean", s.mean);
  o.get("max", s.max);
  o.get("samples", s.samples);
  return s;
}

void read_stats(const Obj& o, const char* key, std::optional<SampleStats>& out) {
  const J* v = o.find(key);
  if (v && !v->is_null()) out = stats_of(*v, o.at(key));
}

ProcessOwner owner_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ProcessOwner w;
  o.get("kind", w.kind);
  o.get("name", w.name);
  o.get("container_id", w.container_id);
  o.get("cgroup_path", w.cgroup_path);
  return w;
}

GpuProcess process_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuProcess p;
  o.get("pid", p.pid);
  o.get("type", p.type);
  o.get("used_memory_bytes", p.used_memory_bytes);
  o.get("gpu_instance_id", p.gpu_instance_id);
  o.get("compute_instance_id", p.compute_instance_id);
  o.get("visible", p.visible);
  o.get("visibility_note", p.visibility_note);
  o.get("name", p.name);
  o.get("cmdline", p.cmdline);
  o.get("uid", p.uid);
  o.get("user", p.user);
  o.get("ppid", p.ppid);
  o.get("nspid", p.nspid);
  o.get("cpus_allowed", p.cpus_allowed);
  o.get("start_time_unix_s", p.start_time_unix_s);
  if (const J* w = o.find("owner"); w && !w->is_null()) p.owner = owner_of(*w, o.at("owner"));
  return p;
}

/// "P0".."P15" -> 0..15 (any "P" and the number json_report.cc writes).
void read_pstate(const Obj& o, std::optional<uint32_t>& out) {
  std::optional<std::string> s;
  o.get("pstate", s);
  if (!s) return;
  const bool digits = s->size() >= 2 && s->size() <= 11 && (*s)[0] == 'P' &&
                      s->find_first_not_of("0123456789", 1) == std::string::npos;
  const uint64_t n = digits ? std::stoull(s->substr(1)) : 0;
  if (!digits || n > UINT32_MAX || "P" + std::to_string(n) != *s)
    fail(o.at("pstate"), "expected \"P0\"..\"P15\", got \"" + s->substr(0, 40) + "\"");
  out = static_cast<uint32_t>(n);
}

void read_recovery(const Obj& o, RecoveryState& r) {
  o.get("action", r.action);
  o.get("action_code", r.action_code);
  o.get("action_text", r.action_text);
  o.get("reset_required", r.reset_required);
  o.get("drain_and_reset_recommended", r.drain_and_reset_recommended);
  o.get("flags_from_deprecated_fields", r.flags_from_deprecated_fields);
}

RowRemapperHistogram histogram_of(const J& j, const std::string& path) {
  Obj o(j, path);
  RowRemapperHistogram h;
  o.get("max", h.max);
  o.get("high", h.high);
  o.get("partial", h.partial);
  o.get("low", h.low);
  o.get("none", h.none);
  return h;
}

/// A word, or "unknown(5)" for NVML's number this version cannot name
/// (name_with_code): kUnknown and the number.
template <typename E>
void read_coded(const Obj& o, const char* key, std::optional<E>& out,
                std::optional<uint32_t>& code) {
  std::optional<std::string> w;
  o.get(key, w);
  if (!w) return;
  constexpr std::string_view kUnknown = "unknown(";
  if (w->starts_with(kUnknown) && w->ends_with(")")) {
    const std::string digits = w->substr(kUnknown.size(), w->size() - kUnknown.size() - 1);
    uint32_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      fail(o.at(key), "expected \"unknown(N)\", got \"" + w->substr(0, 40) + "\"");
    out = E::kUnknown;
    code = n;
    return;
  }
  E e{};
  read(J(*w), o.at(key), e);
  out = e;
}

FabricInfo fabric_of(const J& j, const std::string& path) {
  Obj o(j, path);
  FabricInfo f;
  read_coded(o, "state", f.state, f.state_code);
  o.get("status", f.status);
  o.get("clique_id", f.clique_id);
  o.get("cluster_uuid", f.cluster_uuid);
  if (const J* m = o.find("health_mask")) read_hex(*m, o.at("health_mask"), f.health_mask);
  Obj h = o.sub("health");
  h.get("bandwidth_degraded", f.bandwidth_degraded);
  h.get("route_recovery_in_progress", f.route_recovery_in_progress);
  h.get("route_unhealthy", f.route_unhealthy);
  h.get("access_timeout_recovery", f.access_timeout_recovery);
  h.get("incorrect_configuration", f.incorrect_configuration);
  read_coded(h, "summary", f.health_summary, f.health_summary_code);
  return f;
}

void read_counters(const Obj& o, NvLinkCounters& c) {
  o.get("crc_flit", c.crc_flit);
  o.get("crc_data", c.crc_data);
  o.get("replay", c.replay);
  o.get("recovery", c.recovery);
}

NvLink nvlink_of(const J& j, const std::string& path) {
  Obj o(j, path);
  NvLink l;
  o.get("link", l.link);
  o.get("active", l.active);
  o.get("version", l.version);
  o.get("remote_pci_bus_id", l.remote_pci_bus_id);
  o.get("remote_device_type", l.remote_device_type);
  read_counters(o.sub("errors"), l.errors);
  read_counters(o.sub("errors_growth"), l.errors_growth);
  return l;
}

GpuPeer peer_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuPeer p;
  o.get("index", p.index);
  o.get("level", p.level);
  Obj c = o.sub("p2p");
  c.get("read", p.p2p_read);
  c.get("write", p.p2p_write);
  c.get("nvlink", p.p2p_nvlink);
  c.get("atomics", p.p2p_atomics);
  return p;
}

void read_thermal(const Obj& o, ThermalState& t) {
  o.get("memory_c", t.memory_temperature_c);
  o.get("slowdown_margin_c", t.slowdown_margin_c);
  Obj th = o.sub("thresholds");
  th.get("shutdown_c", t.shutdown_threshold_c);
  th.get("slowdown_c", t.slowdown_threshold_c);
  th.get("gpu_max_c", t.gpu_max_threshold_c);
  th.get("memory_max_c", t.memory_max_threshold_c);
}

void read_limit_time(const Obj& o, LimitTime& l) {
  Obj s = o.sub("share_of_window");
  s.get("sw_power_cap", l.sw_power_cap_share);
  s.get("sync_boost", l.sync_boost_share);
  s.get("board_limit", l.board_limit_share);
  s.get("low_utilization", l.low_utilization_share);
  s.get("reliability", l.reliability_share);
  s.get("sw_thermal", l.sw_thermal_share);
  s.get("hw_thermal", l.hw_thermal_share);
  s.get("hw_power_brake", l.hw_power_brake_share);
  Obj t = o.sub("total_us");
  t.get("sw_power_cap", l.sw_power_cap_total_us);
  t.get("sync_boost", l.sync_boost_total_us);
  t.get("sw_thermal", l.sw_thermal_total_us);
  t.get("hw_thermal", l.hw_thermal_total_us);
  t.get("hw_power_brake", l.hw_power_brake_total_us);
}

MigDevice mig_of(const J& j, const std::string& path) {
  Obj o(j, path);
  MigDevice m;
  o.get("index", m.index);
  o.get("gpu_instance_id", m.gpu_instance_id);
  o.get("compute_instance_id", m.compute_instance_id);
  o.get("uuid", m.uuid);
  o.get("name", m.name);
  Obj mem = o.sub("memory");
  mem.get("total_bytes", m.memory_total_bytes);
  mem.get("used_bytes", m.memory_used_bytes);
  mem.get("free_bytes", m.memory_free_bytes);
  mem.get("reserved_bytes", m.memory_reserved_bytes);
  o.get("multiprocessor_count", m.multiprocessor_count);
  o.get("volatile_sram_uncorrectable", m.volatile_sram_uncorrectable);
  return m;
}

/// Hex masks, never null in an array.
std::vector<uint64_t> masks_of(const J& j, const std::string& path) {
  std::vector<uint64_t> out;
  if (!j.is_array()) wrong_type(path, "an array", j);
  for (size_t i = 0; i < j.size(); ++i) {
    std::optional<uint64_t> m;
    const std::string at = path + "[" + std::to_string(i) + "]";
    read_hex(j.at(i), at, m);
    if (!m) fail(at, "expected a hex mask, got null");
    out.push_back(*m);
  }
  return out;
}

void read_gpu_identity(const Obj& o, GpuState& g) {
  o.get("index", g.index);
  o.get("status", g.status);
  o.get("status_detail", g.status_detail);
  o.get("stuck_in_call", g.stuck_in_call);
  o.get("name", g.name);
  o.get("uuid", g.uuid);
  o.get("serial", g.serial);
  o.get("vbios_version", g.vbios_version);
  o.get("board_part_number", g.board_part_number);
  Obj pci = o.sub("pci");
  pci.get("bus_id", g.pci_bus_id);
  if (const J* d = pci.find("device_id")) read_hex(*d, pci.at("device_id"), g.pci_device_id);
}

void read_gpu_readings(const Obj& o, GpuState& g) {
  Obj mem = o.sub("memory");
  mem.get("total_bytes", g.memory_total_bytes);
  mem.get("used_bytes", g.memory_used_bytes);
  mem.get("free_bytes", g.memory_free_bytes);
  mem.get("reserved_bytes", g.memory_reserved_bytes);
  Obj util = o.sub("utilization");
  read_stats(util, "gpu_pct", g.utilization_gpu_pct);
  read_stats(util, "memory_pct", g.utilization_memory_pct);
  o.sub("temperature").get("gpu_c", g.temperature_c);
  o.sub("power").get("draw_w", g.power_draw_w);
  o.sub("power").get("limit_w", g.power_limit_w);
  read_pstate(o, g.pstate);
  o.sub("fan").get("speed_pct", g.fan_speed_pct);
  o.get("persistence_mode", g.persistence_mode);
  o.get("compute_mode", g.compute_mode);
  Obj mig = o.sub("mig").sub("mode");
  mig.get("current", g.mig_mode_current);
  mig.get("pending", g.mig_mode_pending);
}

void read_gpu_memory_health(const Obj& o, GpuState& g) {
  Obj ecc = o.sub("ecc");
  ecc.sub("mode").get("current", g.ecc_mode_current);
  ecc.sub("mode").get("pending", g.ecc_mode_pending);
  Obj corrected = ecc.sub("errors").sub("corrected");
  Obj uncorrected = ecc.sub("errors").sub("uncorrected");
  corrected.get("volatile", g.ecc.volatile_corrected);
  corrected.get("aggregate", g.ecc.aggregate_corrected);
  uncorrected.get("volatile", g.ecc.volatile_uncorrected);
  uncorrected.get("aggregate", g.ecc.aggregate_uncorrected);
  Obj rp = o.sub("retired_pages");
  rp.get("single_bit_ecc_count", g.retired_pages.single_bit);
  rp.get("double_bit_ecc_count", g.retired_pages.double_bit);
  rp.get("pending", g.retired_pages.pending);
  Obj rr = o.sub("remapped_rows");
  rr.get("correctable", g.remapped_rows.correctable);
  rr.get("uncorrectable", g.remapped_rows.uncorrectable);
  rr.get("pending", g.remapped_rows.pending);
  rr.get("failure", g.remapped_rows.failure);
}

void read_gpu_link_and_clocks(const Obj& o, GpuState& g) {
  Obj pcie = o.sub("pcie");
  Obj gen = pcie.sub("link").sub("gen");
  Obj width = pcie.sub("link").sub("width");
  gen.get("current", g.pcie.current_gen);
  gen.get("max", g.pcie.max_gen);
  gen.get("device_max", g.pcie.device_max_gen);
  width.get("current", g.pcie.current_width);
  width.get("max", g.pcie.max_width);
  pcie.get("replay_counter", g.pcie.replay_counter);
  Obj reasons = o.sub("clocks_event_reasons");
  if (const J* a = reasons.find("active"))
    read_hex(*a, reasons.at("active"), g.clock_event_reasons);
  if (const J* s = reasons.find("supported"))
    read_hex(*s, reasons.at("supported"), g.clock_event_reasons_supported);
}

void read_gpu_driver_signals(const Obj& o, GpuState& g) {
  read_recovery(o.sub("recovery"), g.recovery);
  if (const J* h = o.find("row_remapper_histogram"); h && !h->is_null())
    g.row_remapper_histogram = histogram_of(*h, o.at("row_remapper_histogram"));
  if (const J* f = o.find("fabric"); f && !f->is_null()) g.fabric = fabric_of(*f, o.at("fabric"));
  if (const J* l = o.find("nvlinks"); l && !l->is_null())
    read_each(*l, o.at("nvlinks"), g.nvlinks.emplace(), nvlink_of);
  if (const J* p = o.find("peers"); p && !p->is_null())
    read_each(*p, o.at("peers"), g.peers.emplace(), peer_of);
  read_thermal(o.sub("thermal"), g.thermal);
  read_limit_time(o.sub("limit_time"), g.limit_time);
  if (const J* s = o.find("clocks_event_reasons_samples"))
    g.clock_event_reasons_samples = masks_of(*s, o.at("clocks_event_reasons_samples"));
  if (const J* m = o.find("mig_devices"); m && !m->is_null())
    read_each(*m, o.at("mig_devices"), g.mig_devices.emplace(), mig_of);
}

}  // namespace

GpuState gpu_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuState g;
  read_gpu_identity(o, g);
  read_gpu_readings(o, g);
  read_gpu_memory_health(o, g);
  read_gpu_link_and_clocks(o, g);
  read_gpu_driver_signals(o, g);
  if (const J* p = o.find("processes"); p && !p->is_null())
    read_each(*p, o.at("processes"), g.processes.emplace(), process_of);
  o.get("processes_error", g.processes_error);
  o.get("process_record_bytes", g.process_record_bytes);
  o.get("errors", g.errors);
  o.get("identity_derived_from", g.identity_derived_from);
  return g;
}

}  // namespace gt::json_read
