// The inverse of json_report.cc, field for field and in the same order, so
// a key added there without one here shows in the round-trip tests
// (json_report_read_test.cc, tests/e2e/json_round_trip.sh). Values that the
// renderer derives (a process's "start_time" from start_time_unix_s,
// "active_names" from the mask, a plan step's number, a MIG device's
// process_pids) are not read back.
#include "render/json_report_read.h"

#include "history/state_file.h"
#include "render/json_cuda.h"
#include "render/json_rdma.h"
#include "render/json_read.h"
#include "render/json_report.h"
#include "util/json_depth.h"

namespace gt {
namespace {

using namespace json_read;

AerTotals aer_totals_of(const Obj& o) {
  AerTotals t;
  o.get("correctable", t.correctable);
  o.get("nonfatal", t.nonfatal);
  o.get("fatal", t.fatal);
  return t;
}

void aer_counter_at(const Obj& o, const char* key, std::optional<AerCounter>& out) {
  const J* v = o.find(key);
  if (!v || v->is_null()) return;
  Obj c(*v, o.at(key));
  AerCounter a;
  c.get("total", a.total);
  if (const J* e = c.find("errors"))
    read_each(*e, c.at("errors"), a.errors, [](const J& x, const std::string& at) {
      Obj eo(x, at);
      AerErrorCount n;
      eo.get("name", n.name);
      eo.get("count", n.count);
      return n;
    });
  out = std::move(a);
}

AerCounters aer_of(const Obj& parent) {
  AerCounters a;
  const J* v = parent.find("aer");
  if (!v || v->is_null()) return a;
  Obj o(*v, parent.at("aer"));
  aer_counter_at(o, "correctable", a.correctable);
  aer_counter_at(o, "nonfatal", a.nonfatal);
  aer_counter_at(o, "fatal", a.fatal);
  const AerTotals rp = aer_totals_of(o.sub("rootport_total"));
  a.rootport_correctable = rp.correctable;
  a.rootport_nonfatal = rp.nonfatal;
  a.rootport_fatal = rp.fatal;
  if (const J* w = o.find("at_window_start"); w && !w->is_null())
    a.at_window_start = aer_totals_of(Obj(*w, o.at("at_window_start")));
  return a;
}

PcieBridge bridge_of(const J& j, const std::string& path) {
  Obj o(j, path);
  PcieBridge b;
  o.get("bus_id", b.bus_id);
  o.get("root_port", b.root_port);
  b.aer = aer_of(o);
  return b;
}

PciDevice pci_of(const J& j, const std::string& path) {
  Obj o(j, path);
  PciDevice d;
  o.get("bus_id", d.bus_id);
  if (const J* v = o.find("device_id")) read_hex(*v, o.at("device_id"), d.device_id);
  if (const J* v = o.find("class")) read_hex(*v, o.at("class"), d.class_code);
  o.get("driver", d.driver);
  Obj link = o.sub("link");
  link.sub("speed_gts").get("current", d.current_link_speed_gts);
  link.sub("speed_gts").get("max", d.max_link_speed_gts);
  link.sub("gen").get("current", d.current_link_gen);
  link.sub("gen").get("max", d.max_link_gen);
  link.sub("width").get("current", d.current_link_width);
  link.sub("width").get("max", d.max_link_width);
  o.get("numa_node", d.numa_node);
  o.get("model", d.model);
  o.get("uuid", d.uuid);
  d.aer = aer_of(o);
  o.get("upstream_bridges", d.upstream_bridges);
  return d;
}

NumaNode numa_node_of(const J& j, const std::string& path) {
  Obj o(j, path);
  NumaNode n;
  o.get("id", n.id);
  o.get("cpus", n.cpus);
  return n;
}

NvidiaSmiBinary nvidia_smi_of(const J& j, const std::string& path) {
  Obj o(j, path);
  NvidiaSmiBinary b;
  o.get("path", b.path);
  o.get("release", b.release);
  o.get("container", b.container);
  return b;
}

KernelLog::Source log_source_of(const J& j, const std::string& path) {
  Obj o(j, path);
  KernelLog::Source s;
  o.get("name", s.name);
  o.get("boot", s.boot);
  o.get("read", s.read);
  o.get("error", s.error);
  o.get("lines", s.lines);
  return s;
}

KernelLogEvent event_of(const J& j, const std::string& path) {
  Obj o(j, path);
  KernelLogEvent e;
  o.get("kind", e.kind);
  o.get("code", e.code);
  o.get("pci_bus_id", e.pci_bus_id);
  o.get("gpu_instance_id", e.gpu_instance_id);
  o.get("boot", e.boot);
  o.get("monotonic_s", e.monotonic_s);
  if (const J* t = o.find("time")) read_time(*t, o.at("time"), e.time_unix_s);
  o.get("time_text", e.time_text);
  o.get("pid", e.pid);
  o.get("process_name", e.process_name);
  o.get("detail", e.detail);
  o.get("line", e.line);
  if (const J* d = o.find("decoded")) {
    if (!d->is_object()) wrong_type(o.at("decoded"), "an object", *d);
    for (const auto& [name, value] : d->items()) {
      std::string v;
      read(value, o.at("decoded") + "." + name, v);
      e.decoded.emplace_back(name, std::move(v));
    }
  }
  o.get("count", e.count);
  o.get("last_monotonic_s", e.last_monotonic_s);
  if (const J* t = o.find("last_time")) read_time(*t, o.at("last_time"), e.last_time_unix_s);
  o.get("last_time_text", e.last_time_text);
  o.get("distinct_details", e.distinct_details);
  o.get("distinct_details_dropped", e.distinct_details_dropped);
  o.get("cancelled_by_code", e.cancelled_by_code);
  return e;
}

KernelLog kernel_log_of(const J& j, const std::string& path) {
  Obj o(j, path);
  KernelLog k;
  if (const J* s = o.find("sources")) read_each(*s, o.at("sources"), k.sources, log_source_of);
  if (const J* e = o.find("events")) read_each(*e, o.at("events"), k.events, event_of);
  o.get("unparsed_nvidia_lines", k.unparsed_nvidia_lines);
  return k;
}

DataCheck data_of(const J& j, const std::string& path) {
  Obj o(j, path);
  DataCheck d;
  o.get("dir", d.dir);
  o.get("error", d.error);
  o.get("deep", d.deep);
  o.get("expect", d.expect);
  o.get("outside_expect", d.outside_expect);
  o.get("layout", d.layout);
  o.get("files", d.files);
  o.get("intact_files", d.intact_files);
  o.get("samples", d.samples);
  o.get("crc_checked", d.crc_checked);
  o.get("bad_count", d.bad_count);
  if (const J* bad = o.find("bad"))
    read_each(*bad, o.at("bad"), d.bad, [](const J& b, const std::string& at) {
      Obj x(b, at);
      std::pair<std::string, std::string> p;
      x.get("path", p.first);
      x.get("problem", p.second);
      return p;
    });
  o.get("gap_count", d.gap_count);
  o.get("gaps", d.gaps);
  o.get("not_started", d.not_started);
  if (const J* r = o.find("not_started_range"); r && !r->is_null()) {
    Obj range(*r, o.at("not_started_range"));
    auto& p = d.not_started_range.emplace();
    range.get("first", p.first);
    range.get("last", p.second);
  }
  o.get("layout_skips_samples", d.layout_skips_samples);
  o.get("stale", d.stale);
  if (const J* a = o.find("stale_advice")) read_or_empty(*a, o.at("stale_advice"), d.stale_advice);
  o.get("writers", d.writers);
  o.get("errors", d.errors);
  o.get("how_to_resume", d.how_to_resume);
  if (const J* m = o.find("move_command")) read_or_empty(*m, o.at("move_command"), d.move_command);
  if (const J* m = o.find("move_withheld"))
    read_or_empty(*m, o.at("move_withheld"), d.move_withheld);
  if (const J* t = o.find("last_write")) read_time(*t, o.at("last_write"), d.last_write_unix_s);
  return d;
}

DiskUsage disk_of(const J& j, const std::string& path) {
  Obj o(j, path);
  DiskUsage d;
  o.get("path", d.path);
  o.get("error", d.error);
  o.get("same_filesystem_as", d.same_filesystem_as);
  o.get("total_bytes", d.total_bytes);
  o.get("available_bytes", d.available_bytes);
  o.get("inodes_total", d.inodes_total);
  o.get("inodes_available", d.inodes_available);
  return d;
}

MountInfo mount_of(const J& j, const std::string& path) {
  Obj o(j, path);
  MountInfo m;
  o.get("path", m.path);
  o.get("configured_only", m.configured_only);
  o.get("error", m.error);
  o.get("resolved_path", m.resolved_path);
  o.get("mount_point", m.mount_point);
  o.get("fs_type", m.fs_type);
  o.get("source", m.source);
  o.get("options", m.options);
  o.get("read_only", m.read_only);
  o.get("read_only_after_errors", m.read_only_after_errors);
  o.get("total_bytes", m.total_bytes);
  o.get("available_bytes", m.available_bytes);
  o.get("expected_by", m.expected_by);
  o.get("expected_mount_point", m.expected_mount_point);
  o.get("expected_noauto", m.expected_noauto);
  o.get("expected_options", m.expected_options);
  o.get("expected_device", m.expected_device);
  o.get("expected_source_note", m.expected_source_note);
  o.get("mounted_device", m.mounted_device);
  o.get("unmounted_disks", m.unmounted_disks);
  o.get("problem", m.problem);
  o.get("plain_directory", m.plain_directory);
  return m;
}

/// The fingerprint under `key` (history/state_file.h's format), or null.
std::optional<Fingerprint> fingerprint_at(Obj& o, const char* key) {
  const J* f = o.find(key);
  if (!f || f->is_null()) return std::nullopt;
  try {
    return fingerprint_from_json(nlohmann::json(*f));
  } catch (const std::exception& e) {
    fail(o.at(key), e.what());
  }
}

GpuHistory history_of(const J& j, const std::string& path) {
  Obj o(j, path);
  GpuHistory h;
  o.get("file", h.file);
  o.get("boot_id", h.boot_id);
  o.get("previous_boot_id", h.previous_boot_id);
  o.get("previous_boot_first_unix_s", h.previous_boot_first_unix_s);
  if (const J* b = o.find("boots"))
    read_each(*b, o.at("boots"), h.boots, [](const J& x, const std::string& at) {
      Obj bo(x, at);
      HistoryBoot boot;
      bo.get("boot_id", boot.boot_id);
      bo.get("first_seen_unix_s", boot.first_seen_unix_s);
      bo.get("last_seen_unix_s", boot.last_seen_unix_s);
      boot.first_fingerprint = fingerprint_at(bo, "first_fingerprint");
      boot.last_fingerprint = fingerprint_at(bo, "last_fingerprint");
      return boot;
    });
  if (const J* a = o.find("aer"); a && !a->is_null())
    read_each(*a, o.at("aer"), h.aer, [](const J& x, const std::string& at) {
      Obj ao(x, at);
      AerRecord r;
      ao.get("bus_id", r.bus_id);
      ao.get("boot_id", r.boot_id);
      ao.get("read_unix_s", r.read_unix_s);
      r.totals = aer_totals_of(ao);
      return r;
    });
  if (const J* g = o.find("gpus"))
    read_each(*g, o.at("gpus"), h.gpus, [](const J& x, const std::string& at) {
      Obj go(x, at);
      GpuRecord r;
      go.get("uuid", r.uuid);
      if (const J* f = go.find("findings"))
        read_each(*f, go.at("findings"), r.findings, [](const J& y, const std::string& at2) {
          Obj fo(y, at2);
          FindingBoots fb;
          fo.get("id", fb.finding_id);
          fo.get("boot_ids", fb.boot_ids);
          return fb;
        });
      return r;
    });
  return h;
}

KernelModule module_of(const J& j, const std::string& path) {
  Obj o(j, path);
  KernelModule m;
  o.get("name", m.name);
  o.get("refcnt", m.refcnt);
  o.get("holders", m.holders);
  return m;
}

NvidiaService service_of(const J& j, const std::string& path) {
  Obj o(j, path);
  NvidiaService s;
  o.get("what", s.what);
  o.get("pid", s.pid);
  o.get("comm", s.comm);
  o.get("unit", s.unit);
  return s;
}

StuckTask stuck_of(const J& j, const std::string& path) {
  Obj o(j, path);
  StuckTask t;
  o.get("pid", t.pid);
  o.get("tid", t.tid);
  o.get("comm", t.comm);
  o.get("wchan", t.wchan);
  o.get("nvidia_frame", t.nvidia_frame);
  o.get("sleeping_s", t.sleeping_s);
  return t;
}

/// nvml.init_error's word: an outcome's name, else NVML's return name (any
/// other word: kOtherNvmlError, the word kept). A word NVML returned is
/// init_return_name too, as the collectors record it.
void read_init_error(const Obj& o, NvmlStatus& n) {
  std::optional<std::string> word;
  o.get("init_error", word);
  if (!word) return;
  const NvmlInitError e = parse_nvml_init_error(*word).value_or(NvmlInitError::kOtherNvmlError);
  n.init_error = e;
  if (nvml_returned(e)) n.init_return_name = *word;
}

/// A capture writes loaded/initialized as null (this machine's NVML was
/// not asked): read as false, the model's default.
void read_nvml(const Obj& o, NvmlStatus& n) {
  if (const J* l = o.find("loaded"); l && !l->is_null()) read(*l, o.at("loaded"), n.loaded);
  if (const J* i = o.find("initialized"); i && !i->is_null())
    read(*i, o.at("initialized"), n.initialized);
  o.get("library_path", n.library_path);
  o.get("library_file", n.library_file);
  o.get("library_version", n.library_version);
  o.get("init_return_code", n.init_return_code);
  read_init_error(o, n);
  o.get("error", n.error_message);
  o.get("load_error", n.load_error);
  o.get("missing_symbols", n.missing_symbols);
}

ServerMember member_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ServerMember m;
  o.get("pid", m.pid);
  o.get("type", m.type);
  o.get("name", m.name);
  o.get("cmdline", m.cmdline);
  if (const J* mem = o.find("memory"))
    read_each(*mem, o.at("memory"), m.memory, [](const J& x, const std::string& at) {
      Obj e(x, at);
      std::pair<uint32_t, std::optional<uint64_t>> p;
      e.get("gpu_index", p.first);
      e.get("memory_bytes", p.second);
      return p;
    });
  o.get("rank", m.rank);
  return m;
}

ServerProcess server_process_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ServerProcess p;
  o.get("pid", p.pid);
  o.get("cmdline", p.cmdline);
  return p;
}

ServerGpu server_gpu_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ServerGpu g;
  o.get("index", g.index);
  o.get("memory_bytes", g.memory_bytes);
  return g;
}

ContainerMount container_mount_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ContainerMount m;
  o.get("source", m.source);
  o.get("destination", m.destination);
  return m;
}

ContainerInfo container_of(const J& j, const std::string& path) {
  Obj o(j, path);
  ContainerInfo c;
  o.get("id", c.id);
  o.get("name", c.name);
  o.get("created_unix_s", c.created_unix_s);
  o.get("command", c.command);
  o.get("image", c.image);
  o.get("path_env", c.path_env);
  o.get("init_pid", c.init_pid);
  if (const J* m = o.find("mounts")) read_each(*m, o.at("mounts"), c.mounts, container_mount_of);
  o.get("restart_policy", c.restart_policy);
  o.get("auto_remove", c.auto_remove);
  o.get("created_by_unit", c.created_by_unit);
  return c;
}

Server server_of(const J& j, const std::string& path) {
  Obj o(j, path);
  Server s;
  o.get("id", s.id);
  o.get("kind", s.kind);
  o.get("recognised", s.recognised);
  o.get("root_pid", s.root_pid);
  o.get("root_cmdline", s.root_cmdline);
  if (const J* g = o.find("gpus")) read_each(*g, o.at("gpus"), s.gpus, server_gpu_of);
  if (const J* m = o.find("members")) read_each(*m, o.at("members"), s.members, member_of);
  o.get("model", s.model);
  o.get("port", s.port);
  o.get("port_source", s.port_source);
  o.get("tensor_parallel", s.tensor_parallel);
  o.get("data_parallel", s.data_parallel);
  o.get("pipeline_parallel", s.pipeline_parallel);
  o.get("expert_parallel", s.expert_parallel);
  o.get("world_size", s.world_size);
  o.get("local_world_size", s.local_world_size);
  if (const J* w = o.find("wrappers"))
    read_each(*w, o.at("wrappers"), s.wrappers, server_process_of);
  if (const J* v = o.find("supervisor"); v && !v->is_null())
    s.supervisor = server_process_of(*v, o.at("supervisor"));
  o.get("launcher_exited", s.launcher_exited);
  o.get("user", s.user);
  o.get("start_time_unix_s", s.start_time_unix_s);
  o.get("started_after_boot_s", s.started_after_boot_s);
  o.get("auto_started", s.auto_started);
  o.get("owner_kind", s.owner_kind);
  o.get("owner_name", s.owner_name);
  o.get("restart_policy", s.restart_policy);
  o.get("restarts_when_signalled", s.restarts_when_signalled);
  if (const J* c = o.find("container"); c && !c->is_null())
    s.container = container_of(*c, o.at("container"));
  o.get("container_main", s.container_main);
  o.get("graphics_only", s.graphics_only);
  o.get("grouping_note", s.grouping_note);
  o.get("identity_notes", s.identity_notes);
  return s;
}

/// Reads an optional array member of objects: null or absent stays null.
template <typename T, typename F>
void read_optional_each(const Obj& o, const char* key, std::optional<std::vector<T>>& out, F each) {
  if (const J* v = o.find(key); v && !v->is_null()) read_each(*v, o.at(key), out.emplace(), each);
}

/// A bundle replay's check against the archive's record ("replay").
BundleReplay replay_of(const J& j, const std::string& path) {
  Obj o(j, path);
  BundleReplay b;
  o.get("bundle", b.file);
  o.get("members_unverified", b.unverified);
  o.get("recorded_verdict", b.recorded_verdict);
  o.get("recorded_findings", b.recorded_findings);
  o.get("replayed_verdict", b.replayed_verdict);
  o.get("differences", b.differences);
  return b;
}

void read_snapshot_header(const Obj& o, NodeSnapshot& s) {
  o.get("source", s.source);
  o.get("hostname", s.hostname);
  o.get("os_id", s.os_id);
  o.get("os_id_like", s.os_id_like);
  o.get("collected_at_unix_ms", s.collected_at_unix_ms);
  o.get("captured_at", s.captured_at);
  o.get("captured_at_unix_s", s.captured_at_unix_s);
  o.get("capture_file", s.capture_file);
  o.get("sample_window_s", s.sample_window_s);
  read_nvml(o.sub("nvml"), s.nvml);
  o.get("driver_version", s.driver_version);
  o.get("nvml_version", s.nvml_version);
  o.get("cuda_driver_version", s.cuda_driver_version);
  o.get("kernel_module_version", s.kernel_module_version);
  o.get("kernel_release", s.kernel_release);
  o.get("gpu_count", s.gpu_count);
}

void read_snapshot(const Obj& o, NodeSnapshot& s) {
  read_snapshot_header(o, s);
  if (const J* g = o.find("gpus")) read_each(*g, o.at("gpus"), s.gpus, gpu_of);
  read_optional_each(o, "servers", s.servers, server_of);
  if (const J* p = o.find("pci_devices")) read_each(*p, o.at("pci_devices"), s.pci_devices, pci_of);
  o.get("nvswitches", s.nvswitches);
  read_optional_each(o, "numa_nodes", s.numa_nodes, numa_node_of);
  read_optional_each(o, "nvidia_smi", s.nvidia_smi, nvidia_smi_of);
  if (const J* b = o.find("pcie_bridges"))
    read_each(*b, o.at("pcie_bridges"), s.pcie_bridges, bridge_of);
  if (const J* k = o.find("kernel_log"); k && !k->is_null())
    s.kernel_log = kernel_log_of(*k, o.at("kernel_log"));
  if (const J* d = o.find("disks")) read_each(*d, o.at("disks"), s.disks, disk_of);
  o.get("machine_kind", s.machine_kind);
  o.get("machine_evidence", s.machine_evidence);
  if (const J* d = o.find("data"); d && !d->is_null()) s.data = data_of(*d, o.at("data"));
  if (const J* i = o.find("incident"); i && !i->is_null())
    s.incident = incident_of(*i, o.at("incident"));
  if (const J* m = o.find("mounts")) read_each(*m, o.at("mounts"), s.mounts, mount_of);
  o.get("mounts_unread", s.mounts_unread);
  if (const J* c = o.find("cuda"); c && !c->is_null()) s.cuda = cuda_readiness_of(*c, o.at("cuda"));
  if (const J* r = o.find("rdma"); r && !r->is_null()) s.rdma = rdma_of(*r, o.at("rdma"));
  if (const J* h = o.find("history"); h && !h->is_null()) {
    s.history = history_of(*h, o.at("history"));
    Obj ho(*h, o.at("history"));
    s.fingerprint = fingerprint_at(ho, "fingerprint");
  }
  if (const J* m = o.find("nvidia_modules"))
    read_each(*m, o.at("nvidia_modules"), s.nvidia_modules, module_of);
  if (const J* v = o.find("nvidia_services"))
    read_each(*v, o.at("nvidia_services"), s.nvidia_services, service_of);
  o.get("nvidia_services_read", s.nvidia_services_read);
  if (const J* f = o.find("fabric_manager"); f && !f->is_null()) {
    Obj fo(*f, o.at("fabric_manager"));
    FabricManagerSigns fm;
    fo.get("unit_active", fm.unit_active);
    fo.get("listening", fm.listening);
    fo.get("socket", fm.socket);
    s.fabric_manager = std::move(fm);
  }
  read_optional_each(o, "stuck_nvidia_tasks", s.stuck_nvidia_tasks, stuck_of);
  o.get("warnings", s.warnings);
  if (const J* r = o.find("replay"); r && !r->is_null())
    s.bundle_replay = replay_of(*r, o.at("replay"));
}

Finding finding_of(const J& j, const std::string& path) {
  Obj o(j, path);
  Finding f;
  o.get("id", f.id);
  o.get("severity", f.severity);
  Obj subj = o.sub("subject");
  subj.get("kind", f.subject.kind);
  subj.get("server_id", f.subject.server_id);
  subj.get("gpu_index", f.subject.gpu_index);
  subj.get("gpu_uuid", f.subject.gpu_uuid);
  subj.get("pci_bus_id", f.subject.pci_bus_id);
  subj.get("pid", f.subject.pid);
  subj.get("path", f.subject.path);
  o.get("title", f.title);
  o.get("evidence", f.evidence);
  o.get("action", f.action);
  o.get("commands", f.commands);
  o.get("joined_ids", f.joined_ids);
  o.get("xid_codes", f.xid_codes);
  o.get("explained_by", f.explained_by);
  return f;
}

PlanStep step_of(const J& j, const std::string& path) {
  Obj o(j, path);
  PlanStep p;
  o.get("text", p.text);
  o.get("commands", p.commands);
  o.get("finding_ids", p.finding_ids);
  o.get("gpu", p.gpu);
  return p;
}

/// The schema this gpu-triage writes; another is an error, never a guess
/// (a newer one may have changed what a key means).
Result<Unit> check_schema(const Obj& o) {
  std::string schema;
  o.get("schema", schema);
  if (schema != "gpu-triage/report")
    return Error{ErrorKind::kMalformed,
                 "not a gpu-triage report (schema \"" + schema.substr(0, 40) + "\")"};
  int64_t version = 0;
  o.get("schema_version", version);
  if (version != kReportSchemaVersion)
    return Error{ErrorKind::kUnsupported,
                 "report schema version " + std::to_string(version) +
                     (version > kReportSchemaVersion ? ", from a newer gpu-triage" : "") +
                     " (this gpu-triage reads " + std::to_string(kReportSchemaVersion) + ")"};
  return ok_status();
}

/// The word and the findings give the typed verdict: judge() sets it to
/// the worst finding's severity, which "OK" writes for ok and info alike.
/// The findings win over the word: a report that says OK while holding a
/// critical (edited, or written by a broken tool) is critical here.
void read_verdict(const Obj& o, Report& r) {
  std::string word;
  o.get("verdict", word);
  Severity worst = Severity::kOk;
  for (const Finding& f : r.findings) worst = std::max(worst, f.severity);
  if (word == "OK" || word == "INFO")
    r.verdict = worst;
  else if (word == "WARNING")
    r.verdict = std::max(worst, Severity::kWarning);
  else if (word == "CRITICAL")
    r.verdict = Severity::kCritical;
  else if (word == "UNKNOWN") {
    r.could_not_check = true;
    r.verdict = worst;
  } else
    fail(o.at("verdict"), "not a verdict: \"" + word.substr(0, 40) + "\"");
}

/// Says when the findings overruled the report's own verdict word.
void note_overruled_verdict(const Obj& o, Report& r) {
  std::string word;
  o.get("verdict", word);
  const std::string counted = verdict_word(r);
  if (word == "UNKNOWN" || word == counted || (word == "INFO" && counted == "OK")) return;
  r.snapshot.warnings.push_back("the report says " + word + " but holds a " +
                                severity_name(r.verdict) + " finding: counted " + counted);
}

}  // namespace

Result<Report> report_from_json(const nlohmann::ordered_json& j) {
  try {
    Obj o(j, "report");
    if (j.is_null()) return Error{ErrorKind::kMalformed, "not a gpu-triage report (null)"};
    if (Result<Unit> s = check_schema(o); !s) return s.error();
    Report r;
    if (const J* f = o.find("findings")) read_each(*f, o.at("findings"), r.findings, finding_of);
    read_verdict(o, r);
    o.get("exit_code", r.exit_code);
    if (const J* p = o.find("plan")) read_each(*p, o.at("plan"), r.plan, step_of);
    read_snapshot(o, r.snapshot);
    note_overruled_verdict(o, r);
    return r;
  } catch (const ReadError& e) {
    return Error{ErrorKind::kMalformed, e.message};
  }
}

Result<Report> report_from_json_text(std::string_view text) {
  std::string why;
  std::optional<nlohmann::ordered_json> j = try_parse_json<nlohmann::ordered_json>(text, why);
  if (!j) return Error{ErrorKind::kMalformed, "not JSON: " + why.substr(0, 200)};
  return report_from_json(*j);
}

}  // namespace gt
