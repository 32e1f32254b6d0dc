#include "cli/run_triage.h"

#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "checks/pin_advice.h"
#include "checks/registry.h"
#include "cli/fleet_main.h"
#include "cli/smi_capture.h"
#include "data/data_check.h"
#include "history/run_history.h"
#include "render/json_report.h"
#include "render/oneline_report.h"
#include "render/prometheus.h"
#include "render/table_report.h"
#include "render/terminal_width.h"
#include "render/textfile.h"
#include "sources/fs/disk_usage.h"
#include "sources/fs/mounts.h"
#include "sources/incident/incident.h"
#include "sources/kernel_log/kernel_log.h"
#include "sources/nvml/nvml_collector.h"
#include "sources/procfs/driver_version.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/servers.h"
#include "sources/procfs/stuck_tasks.h"
#include "sources/sysfs/pci_devices.h"
#include "util/plural.h"

namespace gt {
namespace {

std::optional<std::string> read_hostname(const FsRoot& root) {
  if (root.root() == "/") {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) return std::string(buf);
    return std::nullopt;
  }
  if (auto h = root.read_optional_trimmed("/etc/hostname")) return h;
  return root.read_optional_trimmed("/proc/sys/kernel/hostname");
}

/// os-release(5): /etc/os-release, else /usr/lib/os-release.
void read_os_release(const FsRoot& root, NodeSnapshot& snap) {
  Result<std::string> text = root.read("/etc/os-release");
  if (!text) text = root.read("/usr/lib/os-release");
  if (!text) return;
  OsRelease os = parse_os_release(*text);
  snap.os_id = os.id;
  snap.os_id_like = os.id_like;
}

/// Loads NVML and collects the GPUs. Returns false when NVML is unusable.
NvmlCollectOutcome collect_gpus(const Options& o, const FsRoot& root, NodeSnapshot& snap) {
  snap.nvml.library_path = o.nvml_lib;
  Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open(o.nvml_lib);
  if (!lib) {
    snap.nvml.error_message = lib.error().message;
    snap.nvml.load_error = lib.error().message;
    snap.nvml.init_error =
        lib.error().kind == ErrorKind::kNotFound ? "LIBRARY_NOT_FOUND" : "LIBRARY_UNUSABLE";
    return {};
  }
  snap.nvml.loaded = true;
  if (!(*lib)->real_file().empty()) {
    snap.nvml.library_file = (*lib)->real_file();
    snap.nvml.library_version = library_version_from_filename(
        std::filesystem::path((*lib)->real_file()).filename().string());
  }
  snap.nvml.missing_symbols = (*lib)->missing_optional();
  NvmlCollectOptions co;
  co.timeout = o.timeout;
  co.sample_window = o.sample_window;
  co.enrich_process = [root](GpuProcess& p) { fill_process_details(root, p); };
  return collect_nvml(*lib, co, snap);
}

/// What happened and when, within --timeout of its own (the journal and
/// timedatectl run under it; the --path walks stop at it).
Incident read_incident(const Options& o, const FsRoot& root,
                       const std::optional<std::vector<Server>>& servers) {
  HostSeams seams = host_seams_for(root);
  IncidentOptions io;
  io.runner = seams.runner.get();
  io.clock = seams.clock.get();
  io.paths = o.paths;
  io.deadline = std::chrono::steady_clock::now() + o.timeout;
  return collect_incident(root, io, servers);
}

/// Turns a failed init into the one clear line the operator needs.
void explain_nvml_failure(NodeSnapshot& snap) {
  NvmlStatus& n = snap.nvml;
  // A capture that could not be read has said why (collect_report); this
  // machine's NVML was never asked.
  if (n.initialized || snap.source != "nvml") return;
  const std::string module = snap.kernel_module_version.value_or("unknown");
  const std::string library = n.library_version.value_or("unknown");
  if (no_nvidia_gpu(snap)) {
    n.error_message =
        "no NVIDIA GPU on this machine: nothing on the PCI bus, no nvidia module, no NVML library" +
        (n.library_path == "libnvidia-ml.so.1" ? "" : " (" + n.library_path.value_or("?") + ")");
  } else if (!n.loaded) {
    std::string bus =
        snap.pci_devices.empty()
            ? "no NVIDIA GPU on the PCI bus either"
            : count_of(snap.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") + " on the PCI bus";
    std::string mod = snap.kernel_module_version ? "kernel module " + module + " is loaded"
                                                 : "no nvidia kernel module loaded";
    n.error_message = "no NVIDIA driver: the NVML library " + n.library_path.value_or("?") +
                      " cannot be loaded; " + mod + "; " + bus;
  } else if (n.init_error == "NVML_ERROR_LIB_RM_VERSION_MISMATCH") {
    n.error_message = "driver/library version mismatch: kernel module " + module +
                      ", NVML library " + library +
                      ". Reboot (or unload and reload the nvidia modules) so the running "
                      "module matches the installed library, and pin the driver packages "
                      "so an unattended upgrade cannot split them again.";
  } else if (n.init_error == "NVML_ERROR_DRIVER_NOT_LOADED") {
    n.error_message = "the NVIDIA kernel driver is not loaded (NVML library " + library +
                      " is installed; " +
                      count_of(snap.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") +
                      " on the PCI bus). Load it with 'modprobe nvidia' and "
                      "check dmesg if that fails.";
  } else if (n.init_error == "NVML_ERROR_NO_PERMISSION") {
    n.error_message =
        "no permission to open the NVIDIA devices (/dev/nvidia*): run as root "
        "or as a member of the group that owns them.";
  }
}

}  // namespace

int exit_code_for(const Report& r, bool npd) {
  if (r.could_not_check) return npd ? 2 : static_cast<int>(ExitCode::kUnknown);
  switch (r.verdict) {
    case Severity::kOk:
    case Severity::kInfo:
      return static_cast<int>(ExitCode::kOk);
    case Severity::kWarning:
      return npd ? 1 : static_cast<int>(ExitCode::kWarning);
    case Severity::kCritical:
      return npd ? 1 : static_cast<int>(ExitCode::kCritical);
  }
  return static_cast<int>(ExitCode::kUnknown);
}

Report collect_report(const Options& o, bool& abandoned_threads) {
  const FsRoot root(o.root);
  Report report;
  NodeSnapshot& snap = report.snapshot;
  // Phase 1: collect (the GPUs under a deadline, then the quick file reads).
  snap.collected_at_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  snap.sample_window_s = o.sample_window.count() / 1000.0;
  if (o.smi_xml) {
    // A capture is another node: nothing of this machine is read.
    // Unreadable: nothing to judge, so the verdict is UNKNOWN.
    if (Status s = fill_from_smi_capture(*o.smi_xml, snap); !s) {
      std::cerr << "gpu-triage: --smi-xml: " << s.error().message << "\n";
      snap.nvml.error_message = s.error().message;
      snap.warnings.push_back("--smi-xml: " + s.error().message);
    }
    snap.servers = group_servers(snap, nullptr);
  } else {
    // Stuck tasks are read at both ends of the NVML collection (the sample
    // window): only a task stuck at both counts (persisting_tasks).
    std::vector<std::string> first_scan_warnings;
    auto stuck_before = read_stuck_nvidia_tasks(root, &first_scan_warnings);
    NvmlCollectOutcome outcome = collect_gpus(o, root, snap);
    abandoned_threads = outcome.abandoned_threads;
    snap.servers = group_servers(snap, &root);
    snap.hostname = read_hostname(root);
    read_os_release(root, snap);
    snap.kernel_module_version = read_kernel_module_version(root);
    snap.kernel_release = root.read_optional_trimmed("/proc/sys/kernel/osrelease");
    snap.nvidia_modules = read_nvidia_modules(root);
    snap.nvidia_services = read_nvidia_services(root);
    snap.nvidia_services_read = true;
    snap.stuck_nvidia_tasks =
        persisting_tasks(stuck_before, read_stuck_nvidia_tasks(root, &snap.warnings));
    Result<std::vector<PciDevice>> pci = read_nvidia_pci_devices(root);
    if (pci)
      snap.pci_devices = std::move(*pci);
    else
      snap.warnings.push_back("PCI bus not read: " + pci.error().message);
    if (!o.no_kernel_log) {
      KernelLogOptions klo;
      klo.file = o.kernel_log_file;
      snap.kernel_log = read_kernel_log(root, klo);
    }
    snap.disks = read_disk_usage(root, o.paths);
    if (o.data_dir) snap.data = check_data_dir({*o.data_dir, o.data_expect, o.data_deep}, root);
    snap.incident = read_incident(o, root, snap.servers);
    snap.mounts = read_mounts(root, snap.disks);
    load_history(o.state_dir, o.no_state, root, snap);
  }  // --smi-xml
  // Phase 2: explain what failed, in words; judge.
  explain_nvml_failure(snap);
  CheckOptions co;
  co.expect_gpus = o.expect_gpus;
  // As root here, commands are written without sudo (the checks never ask
  // the OS); a capture's commands are for its own node's operator.
  co.running_as_root = !o.smi_xml && ::geteuid() == 0;
  judge(report, co);
  record_run(report);  // after judging: this run joins the record
  report.exit_code = exit_code_for(report, o.npd_exit_codes);
  return report;
}

int run_triage(const Options& o, bool& abandoned_threads) {
  if (fleet_input(o)) return run_fleet(o);
  const auto start = std::chrono::steady_clock::now();
  Report report = collect_report(o, abandoned_threads);
  const NodeSnapshot& snap = report.snapshot;
  std::optional<std::string> textfile_error;  // printed last, after the report
  if (o.textfile) {
    PrometheusContext ctx;
    ctx.version = GT_VERSION;
    ctx.collection_duration_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Status written = write_textfile_atomically(*o.textfile, render_prometheus(report, ctx));
    if (!written) {
      // Not a verdict on the node: exit 74 (EX_IOERR), docs/fleet-integration.md.
      std::string why = "--textfile: cannot write " + *o.textfile + "/" + kTextfileName + ": " +
                        written.error().message;
      report.snapshot.warnings.push_back(why);  // in the table's notes and JSON's warnings
      report.exit_code = static_cast<int>(ExitCode::kIoError);
      textfile_error = "gpu-triage: " + why;
    }
  }
  // Phase 3: render.
  if (o.json) {
    render_json(report, std::cout);
  } else if (o.oneline) {
    if (textfile_error) {
      // No line: its verdict word ("OK ...") would read as success.
    } else if (o.npd_exit_codes)
      render_oneline_npd(report, std::cout);
    else
      render_oneline(report, std::cout);
  } else {
    TableOptions t;
    t.wide = o.wide;
    t.width = table_width(STDOUT_FILENO);
    const char* no_color = std::getenv("NO_COLOR");
    bool tty = isatty(STDOUT_FILENO) == 1;
    t.color = o.color.value_or(tty && (no_color == nullptr || *no_color == '\0'));
    render_table(report, t, std::cout);
  }
  // An unreadable capture said why on stderr already (collect_report).
  const bool capture_unread = o.smi_xml && !snap.nvml.loaded;
  if (!snap.nvml.initialized && o.json && !capture_unread)
    std::cerr << "gpu-triage: " << snap.nvml.error_message.value_or("NVML unusable") << "\n";
  if (textfile_error) {
    std::cout.flush();
    std::cerr << *textfile_error << "\n";
  }
  return report.exit_code;
}

}  // namespace gt
