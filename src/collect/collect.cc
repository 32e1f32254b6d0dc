// The collectors of each origin, in dependency order; see collect.h.
#include "collect/collect.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include "data/check_data_dir.h"
#include "history/run_history.h"
#include "sources/cuda/libcuda_for_new_job.h"
#include "sources/cuda/readiness.h"
#include "sources/cuda_driver/probe_run.h"
#include "sources/fs/disk_usage.h"
#include "sources/fs/mount_table.h"
#include "sources/incident/incident_collector.h"
#include "sources/incident/recording_host.h"
#include "sources/kernel_log/kernel_log.h"
#include "sources/nvml/nvml_collector.h"
#include "sources/procfs/container_identity.h"
#include "sources/procfs/driver_version.h"
#include "sources/procfs/fabric_manager.h"
#include "sources/procfs/hostname.h"
#include "sources/procfs/nvidia_smi_binary.h"
#include "sources/procfs/os_release.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/python_packages.h"
#include "sources/procfs/servers.h"
#include "sources/procfs/stuck_tasks.h"
#include "sources/smi_xml/smi_capture_file.h"
#include "sources/sysfs/aer_counters.h"
#include "sources/sysfs/machine_kind.h"
#include "sources/sysfs/numa_nodes.h"
#include "sources/sysfs/pci_devices.h"
#include "sources/sysfs/rdma_devices.h"

namespace gt {
namespace {

int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Loads NVML and collects the GPUs under the deadline.
NvmlCollectOutcome collect_gpus(const CollectInputs& in, const FsRoot& root, NodeSnapshot& snap) {
  snap.nvml.library_path = in.nvml_lib;
  Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open(in.nvml_lib);
  if (!lib) {
    snap.nvml.error_message = lib.error().message;
    snap.nvml.load_error = lib.error().message;
    snap.nvml.init_error = lib.error().kind == ErrorKind::kNotFound
                               ? NvmlInitError::kLibraryNotFound
                               : NvmlInitError::kLibraryUnusable;
    return {};
  }
  snap.nvml.loaded = true;
  if (!(*lib)->real_file().empty()) {
    // Under a fixture root (a scenario, a node's image) as the node sees it.
    snap.nvml.library_file = root.node_path((*lib)->real_file());
    snap.nvml.library_version = library_version_from_filename(
        std::filesystem::path((*lib)->real_file()).filename().string());
  }
  snap.nvml.missing_symbols = (*lib)->missing_optional();
  NvmlCollectOptions co;
  co.timeout = in.timeout;
  co.sample_window = in.sample_window;
  co.enrich_process = [root](GpuProcess& p) { fill_process_details(root, p); };
  return collect_nvml(*lib, co, snap);
}

/// What happened and when, within the timeout of its own (the journal and
/// timedatectl run under it; the path walks stop at it).
Incident read_incident(const CollectInputs& in, const FsRoot& root, const HostSeams& seams,
                       const std::optional<std::vector<Server>>& servers) {
  IncidentOptions io;
  io.runner = seams.runner.get();
  io.clock = seams.clock.get();
  io.paths = in.paths;
  io.deadline = std::chrono::steady_clock::now() + in.timeout;
  return collect_incident(root, io, servers);
}

/// When the previous boot crashed (its last journal entry, when it ended
/// abruptly or in a panic); nullopt when not known.
std::optional<int64_t> crash_time(const std::optional<Incident>& incident) {
  if (!incident || !incident->previous_boot) return std::nullopt;
  const PreviousBoot& b = *incident->previous_boot;
  if (b.ending != BootEnding::kAbrupt && b.ending != BootEnding::kKernelPanic) return std::nullopt;
  return b.last_entry_unix_s;
}

/// The paths of the disk and mount stages: / and each --path, and --data
/// DIR (the job's output lives on a volume).
std::vector<std::string> disk_paths(const CollectInputs& in) {
  std::vector<std::string> paths = in.paths;
  if (in.data_dir) paths.push_back(*in.data_dir);
  return paths;
}

/// A --data DIR that cannot be statted is left to data.unreadable, not
/// disk.unreadable; its mount is still inspected (an unmounted volume is
/// often why).
std::vector<DiskUsage> without_unread_data_dir(const CollectInputs& in,
                                               std::vector<DiskUsage> disks) {
  if (!in.data_dir) return disks;
  const bool only_data =
      std::find(in.paths.begin(), in.paths.end(), *in.data_dir) == in.paths.end();
  std::erase_if(disks, [&](const DiskUsage& d) {
    return only_data && d.path == *in.data_dir && d.error.has_value();
  });
  return disks;
}

/// The GPU servers' python environments, read on a thread of their own from
/// the moment the servers are known until the fingerprint is taken: hashing
/// their files is most of the fingerprint's cost, and the host, kernel log,
/// disk and incident collectors between (which wait on files and commands)
/// hide it (bench/fingerprint_bench.sh). Not where reads are logged for a
/// bundle: the read log is the main thread's.
class PythonEnvsAhead {
 public:
  void start(const FsRoot& root, const std::vector<Server>& servers) {
    ahead_ = std::async(std::launch::async,
                        [&root, servers] { return read_python_envs(root, servers, HashBounds{}); });
  }
  std::vector<PythonEnvPrint> take(const FsRoot& root, const NodeSnapshot& s) {
    if (ahead_.valid()) return ahead_.get();
    return s.servers ? read_python_envs(root, *s.servers, HashBounds{})
                     : std::vector<PythonEnvPrint>{};
  }

 private:
  std::future<std::vector<PythonEnvPrint>> ahead_;
};

/// The node's fingerprint, taken with the record across boots (last: it
/// reads the GPUs, servers, readiness and mounts collected before it).
Fingerprint take_fingerprint(const FsRoot& root, const NodeSnapshot& s, PythonEnvsAhead& envs) {
  Fingerprint f = fingerprint_of(s, s.collected_at_unix_ms / 1000);
  f.container = read_container_identity(root);
  if (!f.container)
    f.notes.push_back(
        "in a container whose id no file names (/.dockerenv or /run/.containerenv "
        "without one): its recreation cannot be told");
  f.python = envs.take(root, s);
  return f;
}

/// The AER totals `recorded` read at its window's start, on `s`'s GPUs and
/// bridges (a bundle's replay reads each file once).
void keep_aer_window_start(const NodeSnapshot& recorded, NodeSnapshot& s) {
  std::vector<std::pair<std::string, AerTotals>> start;
  for (const PciDevice& d : recorded.pci_devices)
    if (d.aer.at_window_start) start.emplace_back(d.bus_id, *d.aer.at_window_start);
  for (const PcieBridge& b : recorded.pcie_bridges)
    if (b.aer.at_window_start) start.emplace_back(b.bus_id, *b.aer.at_window_start);
  for (PciDevice& d : s.pci_devices) d.aer.at_window_start.reset();
  for (PcieBridge& b : s.pcie_bridges) b.aer.at_window_start.reset();
  set_aer_window_start(s, start);
}

/// This node's table. Stuck tasks are read at both ends of the NVML
/// collection (the sample window): only a task stuck at both counts.
/// The commands and clock of `root` (host_seams_for); a live node read for
/// a bundle records each answer in the read log (recording_host.h).
std::shared_ptr<HostSeams> seams_for(const CollectInputs& in, const FsRoot& root) {
  auto seams = std::make_shared<HostSeams>(host_seams_for(root));
  if (in.read_log && root.root() == "/") {
    auto rec = std::make_shared<RecordingHost>(seams->runner, seams->clock, in.read_log);
    *seams = {rec, rec};
  }
  return seams;
}

/// The probe of triage --cuda: the libcuda a new job would load (the
/// readiness stage's search), at most 256 MiB and 10 s per GPU.
CudaProbeOptions triage_probe_options(const FsRoot& root) {
  CudaProbeOptions o;
  o.library = libcuda_to_probe("", root);
  o.memory_bytes = 256ull << 20;
  o.timeout = std::chrono::seconds(10);
  return o;
}

/// `envs_ahead`: the fingerprint's python environments are read on a thread
/// from the servers' stage on (the record will be written: PythonEnvsAhead).
std::vector<Collector> node_table(const CollectInputs& in, const FsRoot& root, bool& abandoned,
                                  bool envs_ahead = false) {
  auto seams = seams_for(in, root);
  auto envs = std::make_shared<PythonEnvsAhead>();
  auto stuck_before = std::make_shared<std::optional<std::vector<StuckTask>>>();
  auto aer_before = std::make_shared<std::vector<std::pair<std::string, AerTotals>>>();
  auto all_disks = std::make_shared<std::vector<DiskUsage>>();
  return {
      {Stage::kHost,
       [&root, stuck_before, aer_before](NodeSnapshot&) {
         std::vector<std::string> first_scan_warnings;
         *stuck_before = read_stuck_nvidia_tasks(root, &first_scan_warnings);
         *aer_before = read_aer_window_start(root);
       }},
      {Stage::kGpus,
       [&](NodeSnapshot& s) { abandoned = collect_gpus(in, root, s).abandoned_threads; }},
      {Stage::kServers,
       [&root, envs, envs_ahead](NodeSnapshot& s) {
         s.servers = group_servers(s, &root);
         if (envs_ahead && s.servers) envs->start(root, *s.servers);
       }},
      {Stage::kHost,
       [&root, stuck_before, aer_before](NodeSnapshot& s) {
         read_host_facts(root, s);
         set_aer_window_start(s, *aer_before);
         s.stuck_nvidia_tasks =
             persisting_tasks(*stuck_before, read_stuck_nvidia_tasks(root, &s.warnings));
       }},
      // After the GPUs, servers and host facts: it reads their processes and
      // the module's version.
      {Stage::kReadiness,
       [&](NodeSnapshot& s) {
         s.cuda = read_cuda_readiness(root, s,
                                      {in.python, std::chrono::steady_clock::now() + in.timeout});
       }},
      // On demand (triage --cuda), after the readiness stage: a child per GPU
      // loads the libcuda a new job would. NVML's own findings say why a
      // node whose NVML did not start is not probed.
      {Stage::kCudaProbe,
       [&](NodeSnapshot& s) {
         if (s.nvml.initialized)
           s.cuda_probe = probe_cuda(s, std::nullopt, triage_probe_options(root));
       }},
      {Stage::kKernelLog,
       [&, seams](NodeSnapshot& s) {
         KernelLogOptions klo;
         klo.file = in.kernel_log_file;
         klo.runner = seams->runner.get();
         s.kernel_log = read_kernel_log(root, klo);
       }},
      {Stage::kDisks,
       [&, all_disks](NodeSnapshot& s) {
         *all_disks = read_disk_usage(root, disk_paths(in));
         s.disks = without_unread_data_dir(in, *all_disks);
       }},
      {Stage::kIncident,
       [&, seams](NodeSnapshot& s) { s.incident = read_incident(in, root, *seams, s.servers); }},
      // After the incident: its crash time anchors quick mode's window too.
      {Stage::kData,
       [&](NodeSnapshot& s) {
         if (in.data_dir)
           s.data = check_data_dir(
               {*in.data_dir, in.data_expect, in.data_deep, crash_time(s.incident)}, root);
       }},
      {Stage::kMounts,
       [&, all_disks](NodeSnapshot& s) {
         s.mounts = read_mounts(root, *all_disks, &s.mounts_unread);
       }},
      {Stage::kHistory,
       [&, envs](NodeSnapshot& s) {
         load_history(in.state_dir, in.no_state, root, s);
         if (s.history) s.fingerprint = take_fingerprint(root, s, *envs);
       }},
  };
}

}  // namespace

void read_host_facts(const FsRoot& root, NodeSnapshot& snap) {
  snap.hostname = read_hostname(root);
  if (std::optional<OsRelease> os = read_os_release(root)) {
    snap.os_id = os->id;
    snap.os_id_like = os->id_like;
  }
  snap.kernel_module_version = read_kernel_module_version(root);
  snap.kernel_release = root.read_optional_trimmed("/proc/sys/kernel/osrelease");
  snap.nvidia_smi = read_nvidia_smi_binaries(root);
  if (snap.servers) add_container_nvidia_smi(root, *snap.servers, *snap.nvidia_smi);
  snap.nvidia_modules = read_nvidia_modules(root);
  snap.nvidia_services = read_nvidia_services(root);
  snap.nvidia_services_read = true;
  snap.fabric_manager = read_fabric_manager_signs(root);
  Result<std::vector<PciDevice>> pci = read_nvidia_pci_devices(root);
  if (pci)
    snap.pci_devices = std::move(*pci);
  else
    snap.warnings.push_back("PCI bus not read: " + pci.error().message);
  if (Result<std::vector<std::string>> sw = read_nvswitches(root)) snap.nvswitches = std::move(*sw);
  snap.numa_nodes = read_numa_nodes(root);
  snap.rdma = read_rdma(root, snap.pci_devices, snap.nvidia_modules, snap.warnings);
  snap.pcie_bridges.clear();
  read_pcie_aer(root, snap);
  if (std::optional<MachineKind> m = read_machine_kind(root)) {
    snap.machine_kind = m->kind;
    snap.machine_evidence = m->evidence;
  }
}

CheckOptions make_check_options(std::optional<uint32_t> expect_gpus, Origin origin) {
  CheckOptions co;
  co.expect_gpus = expect_gpus;
  // As root here, commands are written without sudo (the checks never ask
  // the OS); another node's commands are for its own operator.
  co.running_as_root = origin == Origin::kNvml && ::geteuid() == 0;
  return co;
}

void run_collectors(const std::vector<Collector>& table, Stages stages, NodeSnapshot& snap) {
  for (const Collector& c : table)
    if (has(stages, c.stage)) c.fill(snap);
}

Report collect_with(Origin origin, const std::vector<Collector>& table, Stages stages) {
  Report report;
  report.snapshot.source = origin;
  report.snapshot.collected_at_unix_ms = now_unix_ms();
  run_collectors(table, stages, report.snapshot);
  return report;
}

Report collect_tick(const FsRoot& root, const std::function<void(NodeSnapshot&)>& gpus,
                    const KernelLog& kernel_log, Stages stages) {
  const std::vector<Collector> table = {
      {Stage::kGpus, gpus},
      {Stage::kServers, [&](NodeSnapshot& s) { s.servers = group_servers(s, &root); }},
      {Stage::kHost, [&](NodeSnapshot& s) { read_host_facts(root, s); }},
      // Whether CUDA would start (a container recreated, a library changed
      // under the resumed job): a few ms of file reads.
      {Stage::kReadiness, [&](NodeSnapshot& s) { s.cuda = read_cuda_readiness(root, s, {}); }},
      {Stage::kKernelLog, [&](NodeSnapshot& s) { s.kernel_log = kernel_log; }},
  };
  return collect_with(Origin::kNvml, table, stages);
}

Collected collect_node(const CollectInputs& in, Stages stages) {
  FsRoot root(in.root);
  root.set_read_log(in.read_log);
  Collected out;
  const bool envs_ahead = has(stages, Stage::kHistory) && !in.no_state && !in.read_log;
  out.report =
      collect_with(Origin::kNvml, node_table(in, root, out.abandoned_threads, envs_ahead), stages);
  out.report.snapshot.sample_window_s = in.sample_window.count() / 1000.0;
  return out;
}

namespace {

/// The disks of a recorded node: its report's figures (the tree's statvfs
/// would be the replaying machine's scratch folder), and each path asked
/// for now that the record has not, unread. None when the record has none
/// (its command had no disk stage: `free` writes such a bundle).
std::vector<DiskUsage> recorded_disks(const NodeSnapshot& recorded, const CollectInputs& in) {
  std::vector<DiskUsage> out = recorded.disks;
  if (out.empty()) return out;
  for (const std::string& p : disk_paths(in)) {
    if (std::any_of(out.begin(), out.end(), [&](const DiskUsage& d) { return d.path == p; }))
      continue;
    if (in.data_dir && p == *in.data_dir) continue;  // --data DIR is judged by the data stage
    DiskUsage d;
    d.path = p;
    d.error = p + ": not in the bundle's record (its free space was not read when recorded)";
    out.push_back(d);
  }
  return out;
}

}  // namespace

Collected collect_recorded(const NodeSnapshot& recorded, const CollectInputs& in, Stages stages) {
  // A node recorded without its kernel log (--no-kernel-log) has none in
  // its bundle: replaying it would judge the log unreadable, not the node.
  if (!recorded.kernel_log) stages = without(stages, Stage::kKernelLog);
  const FsRoot root(in.root);
  Collected out;
  std::vector<Collector> table = node_table(in, root, out.abandoned_threads);
  const std::vector<DiskUsage> disks = recorded_disks(recorded, in);
  for (Collector& c : table)
    if (c.stage == Stage::kDisks)
      c.fill = [&disks](NodeSnapshot& s) { s.disks = disks; };
    else if (c.stage == Stage::kMounts)
      c.fill = [&root, &disks](NodeSnapshot& s) {
        s.mounts = read_mounts(root, disks, &s.mounts_unread);
      };
    else if (c.stage == Stage::kGpus)
      c.fill = [&recorded](NodeSnapshot& s) {
        // Everything the NVML collection sets (collect_nvml).
        s.nvml = recorded.nvml;
        s.driver_version = recorded.driver_version;
        s.nvml_version = recorded.nvml_version;
        s.cuda_driver_version = recorded.cuda_driver_version;
        s.gpu_count = recorded.gpu_count;
        s.gpus = recorded.gpus;
      };
    else if (c.stage == Stage::kCudaProbe)
      c.fill = [](NodeSnapshot&) {};  // a recorded node runs nothing here
    else if (c.stage == Stage::kHistory)
      c.fill = [&recorded](NodeSnapshot& s) {
        // The record across boots as the node read it, and its fingerprint
        // (its servers' python files are not in the bundle): the history
        // and change checks judge what they judged then.
        s.history = recorded.history;
        s.fingerprint = recorded.fingerprint;
      };
  out.report = collect_with(recorded.source, table, stages);
  // The tree holds one read of each AER file: the window's start is the
  // node's own, as its report recorded it.
  keep_aer_window_start(recorded, out.report.snapshot);
  out.report.snapshot.collected_at_unix_ms = recorded.collected_at_unix_ms;
  out.report.snapshot.sample_window_s = recorded.sample_window_s;
  // The name the node had: a live node's comes from gethostname(), which
  // leaves no file in its tree.
  if (has(stages, Stage::kHost) && recorded.hostname)
    out.report.snapshot.hostname = recorded.hostname;
  // nvidia-smi binaries are not copied into a bundle (tens of MB): their
  // releases as the node read them.
  if (has(stages, Stage::kHost)) out.report.snapshot.nvidia_smi = recorded.nvidia_smi;
  return out;
}

Collected collect_capture(const std::string& file, Stages stages) {
  const std::vector<Collector> table = {
      {Stage::kGpus,
       [&](NodeSnapshot& s) {
         // Unreadable: nothing to judge, so the verdict is UNKNOWN.
         if (Status st = fill_from_smi_capture(file, s); !st) {
           s.nvml.error_message = st.error().message;
           s.warnings.push_back("--smi-xml: " + st.error().message);
         }
       }},
      {Stage::kServers, [](NodeSnapshot& s) { s.servers = group_servers(s, nullptr); }},
  };
  Collected out;
  out.report = collect_with(Origin::kCapture, table, stages);
  return out;
}

}  // namespace gt
