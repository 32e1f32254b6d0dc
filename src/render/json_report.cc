#include "render/json_report.h"

#include <ctime>

#include "history/state_file.h"
#include "render/incident_render.h"
#include "render/json_cuda.h"
#include "render/json_gpu_health.h"
#include "render/json_rdma.h"
#include "render/json_util.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace gt {
namespace {

using J = nlohmann::ordered_json;
using json_util::hex_opt;
using json_util::iso_time;
using json_util::opt;

J stats(const std::optional<SampleStats>& s) {
  if (!s) return nullptr;
  return J{{"min", s->min}, {"mean", s->mean}, {"max", s->max}, {"samples", s->samples}};
}

J owner_json(const std::optional<ProcessOwner>& o) {
  if (!o) return nullptr;
  return J{{"kind", owner_kind_name(o->kind)},
           {"name", o->name},
           {"container_id", opt(o->container_id)},
           {"cgroup_path", o->cgroup_path}};
}

J process_json(const GpuProcess& p) {
  J j;
  j["pid"] = p.pid;
  j["type"] = p.type;
  j["used_memory_bytes"] = opt(p.used_memory_bytes);
  j["gpu_instance_id"] = opt(p.gpu_instance_id);
  j["compute_instance_id"] = opt(p.compute_instance_id);
  j["visible"] = p.visible;
  j["visibility_note"] = opt(p.visibility_note);
  j["name"] = opt(p.name);
  j["cmdline"] = opt(p.cmdline);
  j["uid"] = opt(p.uid);
  j["user"] = opt(p.user);
  j["ppid"] = opt(p.ppid);
  j["nspid"] = opt(p.nspid);
  j["cpus_allowed"] = p.cpus_allowed ? J(format_cpu_list(*p.cpus_allowed)) : J(nullptr);
  j["start_time"] = iso_time(p.start_time_unix_s);
  j["start_time_unix_s"] = opt(p.start_time_unix_s);
  j["owner"] = owner_json(p.owner);
  return j;
}

J processes_json(const GpuState& g) {
  if (!g.processes) return nullptr;
  J arr = J::array();
  for (const GpuProcess& p : *g.processes) arr.push_back(process_json(p));
  return arr;
}

J clock_reasons_json(const GpuState& g) {
  J names = nullptr;
  if (g.clock_event_reasons) names = clock_event_reason_names(*g.clock_event_reasons);
  return J{{"active", hex_opt(g.clock_event_reasons, 16)},
           {"supported", hex_opt(g.clock_event_reasons_supported, 16)},
           {"active_names", names}};
}

J gpu_json(const GpuState& g) {
  J j;
  j["index"] = g.index;
  j["status"] = gpu_status_name(g.status);
  j["status_detail"] = opt(g.status_detail);
  j["stuck_in_call"] = opt(g.stuck_in_call);
  j["name"] = opt(g.name);
  j["uuid"] = opt(g.uuid);
  j["serial"] = opt(g.serial);
  j["vbios_version"] = opt(g.vbios_version);
  j["board_part_number"] = opt(g.board_part_number);
  j["pci"] = {
      {"bus_id", opt(g.pci_bus_id)},
      {"device_id",
       hex_opt(g.pci_device_id ? std::optional<uint64_t>(*g.pci_device_id) : std::nullopt, 8)}};
  j["memory"] = {{"total_bytes", opt(g.memory_total_bytes)},
                 {"used_bytes", opt(g.memory_used_bytes)},
                 {"free_bytes", opt(g.memory_free_bytes)},
                 {"reserved_bytes", opt(g.memory_reserved_bytes)}};
  j["utilization"] = {{"gpu_pct", stats(g.utilization_gpu_pct)},
                      {"memory_pct", stats(g.utilization_memory_pct)}};
  j["temperature"] = {{"gpu_c", opt(g.temperature_c)}};
  j["power"] = {{"draw_w", opt(g.power_draw_w)}, {"limit_w", opt(g.power_limit_w)}};
  j["pstate"] = g.pstate ? J("P" + std::to_string(*g.pstate)) : J(nullptr);
  j["fan"] = {{"speed_pct", opt(g.fan_speed_pct)}};
  j["persistence_mode"] = opt(g.persistence_mode);
  j["compute_mode"] = opt(g.compute_mode);
  j["mig"] = {
      {"mode", {{"current", opt(g.mig_mode_current)}, {"pending", opt(g.mig_mode_pending)}}}};
  j["ecc"] = {
      {"mode", {{"current", opt(g.ecc_mode_current)}, {"pending", opt(g.ecc_mode_pending)}}},
      {"errors",
       {{"corrected",
         {{"volatile", opt(g.ecc.volatile_corrected)},
          {"aggregate", opt(g.ecc.aggregate_corrected)}}},
        {"uncorrected",
         {{"volatile", opt(g.ecc.volatile_uncorrected)},
          {"aggregate", opt(g.ecc.aggregate_uncorrected)}}}}}};
  j["retired_pages"] = {{"single_bit_ecc_count", opt(g.retired_pages.single_bit)},
                        {"double_bit_ecc_count", opt(g.retired_pages.double_bit)},
                        {"pending", opt(g.retired_pages.pending)}};
  j["remapped_rows"] = {{"correctable", opt(g.remapped_rows.correctable)},
                        {"uncorrectable", opt(g.remapped_rows.uncorrectable)},
                        {"pending", opt(g.remapped_rows.pending)},
                        {"failure", opt(g.remapped_rows.failure)}};
  j["pcie"] = {
      {"link",
       {{"gen",
         {{"current", opt(g.pcie.current_gen)},
          {"max", opt(g.pcie.max_gen)},
          {"device_max", opt(g.pcie.device_max_gen)}}},
        {"width", {{"current", opt(g.pcie.current_width)}, {"max", opt(g.pcie.max_width)}}}}},
      {"replay_counter", opt(g.pcie.replay_counter)}};
  j["clocks_event_reasons"] = clock_reasons_json(g);
  add_gpu_health_json(g, j);
  j["processes"] = processes_json(g);
  j["processes_error"] = opt(g.processes_error);
  j["process_record_bytes"] = opt(g.process_record_bytes);
  j["errors"] = g.errors;
  j["identity_derived_from"] = opt(g.identity_derived_from);
  return j;
}

J aer_totals_json(const AerTotals& t) {
  return J{
      {"correctable", opt(t.correctable)}, {"nonfatal", opt(t.nonfatal)}, {"fatal", opt(t.fatal)}};
}

J aer_counter_json(const std::optional<AerCounter>& c) {
  if (!c) return nullptr;
  J errors = J::array();
  for (const AerErrorCount& e : c->errors) errors.push_back({{"name", e.name}, {"count", e.count}});
  return J{{"total", c->total}, {"errors", errors}};
}

/// A function's AER counters (model/pcie_aer.h); null when none was read.
J aer_json(const AerCounters& a) {
  if (!aer_read(a) && !a.at_window_start) return nullptr;
  return J{{"correctable", aer_counter_json(a.correctable)},
           {"nonfatal", aer_counter_json(a.nonfatal)},
           {"fatal", aer_counter_json(a.fatal)},
           {"rootport_total",
            aer_totals_json({a.rootport_correctable, a.rootport_nonfatal, a.rootport_fatal})},
           {"at_window_start", a.at_window_start ? aer_totals_json(*a.at_window_start) : J()}};
}

J bridges_json(const std::vector<PcieBridge>& bridges) {
  J arr = J::array();
  for (const PcieBridge& b : bridges)
    arr.push_back({{"bus_id", b.bus_id}, {"root_port", b.root_port}, {"aer", aer_json(b.aer)}});
  return arr;
}

J pci_json(const PciDevice& d) {
  return J{
      {"bus_id", d.bus_id},
      {"device_id", hex_opt(d.device_id ? std::optional<uint64_t>(*d.device_id) : std::nullopt, 4)},
      {"class", hex_opt(d.class_code ? std::optional<uint64_t>(*d.class_code) : std::nullopt, 6)},
      {"driver", opt(d.driver)},
      {"link",
       {{"speed_gts",
         {{"current", opt(d.current_link_speed_gts)}, {"max", opt(d.max_link_speed_gts)}}},
        {"gen", {{"current", opt(d.current_link_gen)}, {"max", opt(d.max_link_gen)}}},
        {"width", {{"current", opt(d.current_link_width)}, {"max", opt(d.max_link_width)}}}}},
      {"numa_node", opt(d.numa_node)},
      {"model", opt(d.model)},
      {"uuid", opt(d.uuid)},
      {"aer", aer_json(d.aer)},
      {"upstream_bridges", opt(d.upstream_bridges)}};
}

J numa_nodes_json(const std::optional<std::vector<NumaNode>>& nodes) {
  if (!nodes) return nullptr;
  J out = J::array();
  for (const NumaNode& n : *nodes)
    out.push_back({{"id", n.id}, {"cpus", n.cpus ? J(format_cpu_list(*n.cpus)) : J(nullptr)}});
  return out;
}

J nvidia_smi_json(const std::optional<std::vector<NvidiaSmiBinary>>& bins) {
  if (!bins) return nullptr;
  J out = J::array();
  for (const NvidiaSmiBinary& b : *bins)
    out.push_back({{"path", b.path}, {"release", opt(b.release)}, {"container", opt(b.container)}});
  return out;
}

J kernel_log_json(const std::optional<KernelLog>& log) {
  if (!log) return nullptr;
  J sources = J::array();
  for (const KernelLog::Source& s : log->sources)
    sources.push_back({{"name", s.name},
                       {"boot", log_boot_name(s.boot)},
                       {"read", s.read},
                       {"error", opt(s.error)},
                       {"lines", s.lines}});
  J events = J::array();
  for (const KernelLogEvent& e : log->events) {
    J decoded = J::object();
    for (const auto& [name, value] : e.decoded) decoded[name] = value;
    events.push_back({{"kind", event_kind_name(e.kind)},
                      {"code", opt(e.code)},
                      {"pci_bus_id", opt(e.pci_bus_id)},
                      {"gpu_instance_id", opt(e.gpu_instance_id)},
                      {"boot", log_boot_name(e.boot)},
                      {"monotonic_s", opt(e.monotonic_s)},
                      {"time", iso_time(e.time_unix_s)},
                      {"time_text", opt(e.time_text)},
                      {"pid", opt(e.pid)},
                      {"process_name", opt(e.process_name)},
                      {"detail", e.detail},
                      {"line", e.line},
                      {"decoded", decoded},
                      {"count", e.count},
                      {"last_monotonic_s", opt(e.last_monotonic_s)},
                      {"last_time", iso_time(e.last_time_unix_s)},
                      {"last_time_text", opt(e.last_time_text)},
                      {"distinct_details", e.distinct_details},
                      {"distinct_details_dropped", e.distinct_details_dropped},
                      {"cancelled_by_code", opt(e.cancelled_by_code)}});
  }
  return J{{"sources", sources},
           {"events", events},
           {"unparsed_nvidia_lines", log->unparsed_nvidia_lines}};
}

J data_json(const std::optional<DataCheck>& d) {
  if (!d) return nullptr;
  J bad = J::array();
  for (const auto& [path, problem] : d->bad) bad.push_back({{"path", path}, {"problem", problem}});
  J range = nullptr;
  if (d->not_started_range)
    range = J{{"first", d->not_started_range->first}, {"last", d->not_started_range->second}};
  return J{{"dir", d->dir},
           {"error", opt(d->error)},
           {"deep", d->deep},
           {"expect", opt(d->expect)},
           {"outside_expect", d->outside_expect},
           {"layout", d->layout},
           {"files", d->files},
           {"intact_files", d->intact_files},
           {"samples", d->samples},
           {"crc_checked", d->crc_checked},
           {"bad_count", d->bad_count},
           {"bad", bad},
           {"gap_count", d->gap_count},
           {"gaps", d->gaps},
           {"not_started", d->not_started},
           {"not_started_range", range},
           {"layout_skips_samples", d->layout_skips_samples},
           {"stale", d->stale},
           {"stale_advice", d->stale_advice.empty() ? J(nullptr) : J(d->stale_advice)},
           {"writers", d->writers},
           {"errors", d->errors},
           {"how_to_resume", d->how_to_resume},
           {"move_command", d->move_command.empty() ? J(nullptr) : J(d->move_command)},
           {"move_withheld", d->move_withheld.empty() ? J(nullptr) : J(d->move_withheld)},
           {"last_write", iso_time(d->last_write_unix_s)}};
}

J disks_json(const std::vector<DiskUsage>& disks) {
  J arr = J::array();
  for (const DiskUsage& d : disks)
    arr.push_back({{"path", d.path},
                   {"error", opt(d.error)},
                   {"same_filesystem_as", opt(d.same_filesystem_as)},
                   {"total_bytes", opt(d.total_bytes)},
                   {"available_bytes", opt(d.available_bytes)},
                   {"inodes_total", opt(d.inodes_total)},
                   {"inodes_available", opt(d.inodes_available)}});
  return arr;
}

J mounts_json(const std::vector<MountInfo>& mounts) {
  J arr = J::array();
  for (const MountInfo& m : mounts)
    arr.push_back({{"path", m.path},
                   {"configured_only", m.configured_only},
                   {"error", opt(m.error)},
                   {"resolved_path", opt(m.resolved_path)},
                   {"mount_point", opt(m.mount_point)},
                   {"fs_type", opt(m.fs_type)},
                   {"source", opt(m.source)},
                   {"options", opt(m.options)},
                   {"read_only", opt(m.read_only)},
                   {"read_only_after_errors", opt(m.read_only_after_errors)},
                   {"total_bytes", opt(m.total_bytes)},
                   {"available_bytes", opt(m.available_bytes)},
                   {"expected_by", opt(m.expected_by)},
                   {"expected_mount_point", opt(m.expected_mount_point)},
                   {"expected_noauto", opt(m.expected_noauto)},
                   {"expected_options", opt(m.expected_options)},
                   {"expected_device", opt(m.expected_device)},
                   {"expected_source_note", opt(m.expected_source_note)},
                   {"mounted_device", opt(m.mounted_device)},
                   {"unmounted_disks", m.unmounted_disks},
                   {"problem", m.problem ? J(mount_problem_name(*m.problem)) : J(nullptr)},
                   {"plain_directory", opt(m.plain_directory)}});
  return arr;
}

/// The record as read before judging (this run not yet in it), and this
/// run's fingerprint.
J history_json(const std::optional<GpuHistory>& h, const std::optional<Fingerprint>& fp) {
  if (!h) return nullptr;
  J j = history_to_json(*h);
  return J{{"file", h->file},
           {"boot_id", opt(h->boot_id)},
           {"previous_boot_id", opt(h->previous_boot_id)},
           {"previous_boot_first_unix_s", opt(h->previous_boot_first_unix_s)},
           {"boots", j["boots"]},
           {"gpus", j["gpus"]},
           {"aer", j["aer"]},
           {"fingerprint", fp ? fingerprint_to_json(*fp) : J()}};
}

J modules_json(const std::vector<KernelModule>& mods) {
  J arr = J::array();
  for (const KernelModule& m : mods)
    arr.push_back({{"name", m.name}, {"refcnt", opt(m.refcnt)}, {"holders", m.holders}});
  return arr;
}

J services_json(const std::vector<NvidiaService>& services) {
  J arr = J::array();
  for (const NvidiaService& s : services)
    arr.push_back({{"what", s.what}, {"pid", s.pid}, {"comm", s.comm}, {"unit", opt(s.unit)}});
  return arr;
}

J stuck_tasks_json(const std::optional<std::vector<StuckTask>>& tasks) {
  if (!tasks) return nullptr;
  J arr = J::array();
  for (const StuckTask& t : *tasks)
    arr.push_back({{"pid", t.pid},
                   {"tid", opt(t.tid)},
                   {"comm", t.comm},
                   {"wchan", opt(t.wchan)},
                   {"nvidia_frame", opt(t.nvidia_frame)},
                   {"sleeping_s", opt(t.sleeping_s)}});
  return arr;
}

J subject_json(const Subject& s) {
  return J{{"kind", s.kind},
           {"server_id", opt(s.server_id)},
           {"gpu_index", opt(s.gpu_index)},
           {"gpu_uuid", opt(s.gpu_uuid)},
           {"pci_bus_id", opt(s.pci_bus_id)},
           {"pid", opt(s.pid)},
           {"path", opt(s.path)}};
}

/// A capture never loaded this machine's NVML: loaded and initialized are
/// null there, not true (nvidia-smi's own NVML did start on that node).
J nvml_json(const NvmlStatus& n, bool capture) {
  return J{{"loaded", capture ? J(nullptr) : J(n.loaded)},
           {"initialized", capture ? J(nullptr) : J(n.initialized)},
           {"library_path", opt(n.library_path)},
           {"library_file", opt(n.library_file)},
           {"library_version", opt(n.library_version)},
           {"init_return_code", opt(n.init_return_code)},
           {"init_error",
            n.init_error ? J(nvml_init_error_word(*n.init_error, n.init_return_name)) : J(nullptr)},
           {"error", opt(n.error_message)},
           {"load_error", opt(n.load_error)},
           {"missing_symbols", n.missing_symbols}};
}

J container_json(const ContainerInfo& c) {
  J mounts = J::array();
  for (const ContainerMount& m : c.mounts)
    mounts.push_back({{"source", m.source}, {"destination", m.destination}});
  return {{"id", c.id},
          {"name", opt(c.name)},
          {"created", iso_time(c.created_unix_s)},
          {"created_unix_s", opt(c.created_unix_s)},
          {"command", opt(c.command)},
          {"image", opt(c.image)},
          {"path_env", opt(c.path_env)},
          {"init_pid", opt(c.init_pid)},
          {"mounts", mounts},
          {"restart_policy", opt(c.restart_policy)},
          {"auto_remove", opt(c.auto_remove)},
          {"created_by_unit", opt(c.created_by_unit)}};
}

J servers_json(const std::optional<std::vector<Server>>& servers) {
  if (!servers) return nullptr;
  J arr = J::array();
  for (const Server& s : *servers) {
    J members = J::array();
    for (const ServerMember& m : s.members) {
      J mem = J::array();
      for (const auto& [index, bytes] : m.memory)
        mem.push_back({{"gpu_index", index}, {"memory_bytes", opt(bytes)}});
      members.push_back({{"pid", m.pid},
                         {"type", m.type},
                         {"name", opt(m.name)},
                         {"cmdline", opt(m.cmdline)},
                         {"memory", mem},
                         {"rank", opt(m.rank)}});
    }
    J gpus = J::array();
    for (const ServerGpu& g : s.gpus)
      gpus.push_back({{"index", g.index}, {"memory_bytes", opt(g.memory_bytes)}});
    J wrappers = J::array();
    for (const ServerProcess& w : s.wrappers)
      wrappers.push_back({{"pid", w.pid}, {"cmdline", w.cmdline}});
    J supervisor =
        s.supervisor ? J{{"pid", s.supervisor->pid}, {"cmdline", s.supervisor->cmdline}} : J();
    arr.push_back({{"id", s.id},
                   {"kind", s.kind},
                   {"recognised", s.recognised},
                   {"root_pid", opt(s.root_pid)},
                   {"root_cmdline", opt(s.root_cmdline)},
                   {"gpus", gpus},
                   {"members", members},
                   {"model", opt(s.model)},
                   {"port", opt(s.port)},
                   {"port_source", opt(s.port_source)},
                   {"tensor_parallel", opt(s.tensor_parallel)},
                   {"data_parallel", opt(s.data_parallel)},
                   {"pipeline_parallel", opt(s.pipeline_parallel)},
                   {"expert_parallel", opt(s.expert_parallel)},
                   {"world_size", opt(s.world_size)},
                   {"local_world_size", opt(s.local_world_size)},
                   {"wrappers", wrappers},
                   {"supervisor", supervisor},
                   {"launcher_exited", s.launcher_exited},
                   {"user", opt(s.user)},
                   {"start_time", iso_time(s.start_time_unix_s)},
                   {"start_time_unix_s", opt(s.start_time_unix_s)},
                   {"started_after_boot_s", opt(s.started_after_boot_s)},
                   {"auto_started", s.auto_started},
                   {"owner_kind", s.owner_kind ? J(owner_kind_name(*s.owner_kind)) : J(nullptr)},
                   {"owner_name", opt(s.owner_name)},
                   {"restart_policy", opt(s.restart_policy)},
                   {"restarts_when_signalled", s.restarts_when_signalled},
                   {"container", s.container ? container_json(*s.container) : J(nullptr)},
                   {"container_main", opt(s.container_main)},
                   {"graphics_only", s.graphics_only},
                   {"grouping_note", opt(s.grouping_note)},
                   {"identity_notes", s.identity_notes}});
  }
  return arr;
}

}  // namespace

nlohmann::ordered_json snapshot_to_json(const NodeSnapshot& snap) {
  J j;
  j["schema"] = snap.schema;
  j["schema_version"] = snap.schema_version;
  j["source"] = origin_name(snap.source);
  j["hostname"] = opt(snap.hostname);
  j["os_id"] = opt(snap.os_id);
  j["os_id_like"] = opt(snap.os_id_like);
  j["collected_at_unix_ms"] = snap.collected_at_unix_ms;
  j["captured_at"] = opt(snap.captured_at);
  j["captured_at_unix_s"] = opt(snap.captured_at_unix_s);
  j["capture_file"] = opt(snap.capture_file);
  j["sample_window_s"] = snap.sample_window_s;
  j["nvml"] = nvml_json(snap.nvml, snap.source != Origin::kNvml);
  j["driver_version"] = opt(snap.driver_version);
  j["nvml_version"] = opt(snap.nvml_version);
  j["cuda_driver_version"] = opt(snap.cuda_driver_version);
  j["kernel_module_version"] = opt(snap.kernel_module_version);
  j["kernel_release"] = opt(snap.kernel_release);
  j["nvidia_smi"] = nvidia_smi_json(snap.nvidia_smi);
  j["gpu_count"] = opt(snap.gpu_count);
  J gpus = J::array();
  for (const GpuState& g : snap.gpus) gpus.push_back(gpu_json(g));
  j["gpus"] = gpus;
  j["servers"] = servers_json(snap.servers);
  J pci = J::array();
  for (const PciDevice& d : snap.pci_devices) pci.push_back(pci_json(d));
  j["pci_devices"] = pci;
  j["nvswitches"] = opt(snap.nvswitches);
  j["numa_nodes"] = numa_nodes_json(snap.numa_nodes);
  j["pcie_bridges"] = bridges_json(snap.pcie_bridges);
  j["kernel_log"] = kernel_log_json(snap.kernel_log);
  j["disks"] = disks_json(snap.disks);
  j["machine_kind"] = opt(snap.machine_kind);
  j["machine_evidence"] = opt(snap.machine_evidence);
  j["data"] = data_json(snap.data);
  j["incident"] = incident_to_json(snap.incident);
  j["mounts"] = mounts_json(snap.mounts);
  // Only when something was not read: every other report's keys stay as they were.
  if (!snap.mounts_unread.empty()) j["mounts_unread"] = snap.mounts_unread;
  j["cuda"] = cuda_readiness_json(snap.cuda);
  j["rdma"] = rdma_json(snap.rdma);
  j["history"] = history_json(snap.history, snap.fingerprint);
  j["nvidia_modules"] = modules_json(snap.nvidia_modules);
  j["nvidia_services"] = services_json(snap.nvidia_services);
  j["nvidia_services_read"] = snap.nvidia_services_read;
  // Only where read (this node): a capture's report keeps its keys.
  if (const std::optional<FabricManagerSigns>& fm = snap.fabric_manager)
    j["fabric_manager"] = J{{"unit_active", opt(fm->unit_active)},
                            {"listening", opt(fm->listening)},
                            {"socket", fm->socket}};
  j["stuck_nvidia_tasks"] = stuck_tasks_json(snap.stuck_nvidia_tasks);
  j["warnings"] = snap.warnings;
  // Only a bundle's replay has one: every other report's keys stay as they were.
  if (const std::optional<BundleReplay>& b = snap.bundle_replay)
    j["replay"] = J{{"bundle", b->file},
                    {"members_unverified", b->unverified},
                    {"recorded_verdict", b->recorded_verdict},
                    {"recorded_findings", b->recorded_findings},
                    {"replayed_verdict", opt(b->replayed_verdict)},
                    {"differences", b->differences}};
  return j;
}

nlohmann::ordered_json report_to_json(const Report& r) {
  J j;
  j["schema"] = "gpu-triage/report";
  j["schema_version"] = kReportSchemaVersion;
  j["verdict"] = verdict_word(r);
  j["exit_code"] = r.exit_code;
  J findings = J::array();
  for (const Finding& f : r.findings)
    findings.push_back({{"id", f.id},
                        {"severity", severity_name(f.severity)},
                        {"subject", subject_json(f.subject)},
                        {"title", f.title},
                        {"evidence", f.evidence},
                        {"action", f.action},
                        {"commands", f.commands},
                        {"joined_ids", f.joined_ids},
                        {"xid_codes", f.xid_codes}});
  // Only on a fleet's finding explained by a fleet finding (the key came
  // before the typed fleet; triage reports never had it).
  for (size_t i = 0; i < r.findings.size(); ++i)
    if (r.findings[i].explained_by) findings[i]["explained_by"] = *r.findings[i].explained_by;
  j["findings"] = findings;
  J plan = J::array();
  int n = 0;
  for (const PlanStep& p : r.plan)
    plan.push_back({{"step", ++n},
                    {"text", p.text},
                    {"commands", p.commands},
                    {"finding_ids", p.finding_ids},
                    {"gpu", opt(p.gpu)}});
  j["plan"] = plan;
  J snap = snapshot_to_json(r.snapshot);  // a named value: items() must not dangle
  for (auto& [key, value] : snap.items())
    if (key != "schema" && key != "schema_version") j[key] = value;
  return j;
}

void render_json(const Report& r, std::ostream& out) {
  // Invalid UTF-8 (a cmdline can hold any bytes) is replaced, never thrown.
  out << json_text(report_to_json(r), 2) << "\n";
}

}  // namespace gt
