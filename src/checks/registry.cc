#include "checks/registry.h"

#include <algorithm>

#include "checks/checks.h"
#include "checks/plan.h"

namespace gt {

const std::vector<CheckSpec>& check_catalogue() {
  using S = Severity;
  static const std::vector<CheckSpec> kChecks = {
      {"nvml.library_missing", "nvml", S::kCritical,
       "NVML library cannot be loaded (no driver installed)"},
      {"nvml.library_unusable", "nvml", S::kCritical, "The library found is not a usable NVML"},
      {"nvml.driver_not_loaded", "nvml", S::kCritical, "NVIDIA kernel driver not loaded"},
      {"nvml.version_mismatch", "nvml", S::kCritical,
       "Driver/library version mismatch: NVML refuses to start"},
      {"nvml.no_permission", "nvml", S::kCritical, "No permission to open the NVIDIA devices"},
      {"nvml.init_failed", "nvml", S::kCritical, "NVML initialization failed (other error)"},
      {"nvml.unresponsive", "nvml", S::kCritical, "NVML did not answer within the timeout"},
      {"driver.version_split", "driver", S::kWarning,
       "User-space NVML library differs from the kernel module"},
      {"gpu.all_present", "gpu", S::kOk, "All GPUs present and answering"},
      {"gpu.count_mismatch", "gpu", S::kCritical,
       "Fewer GPUs than expected (NVML vs PCI bus vs --expect-gpus)"},
      {"capture.incomplete", "gpu", S::kWarning,
       "A capture names more attached GPUs than it describes (trimmed)"},
      {"gpu.missing_from_nvml", "gpu", S::kCritical,
       "A GPU on the PCI bus that NVML cannot see (fallen off the bus)"},
      {"gpu.no_driver_bound", "gpu", S::kCritical, "A GPU on the PCI bus with no driver bound"},
      {"gpu.lost", "gpu", S::kCritical, "GPU lost (NVML error 15)"},
      {"gpu.unresponsive", "gpu", S::kCritical, "GPU did not answer within the timeout"},
      {"gpu.inaccessible", "gpu", S::kCritical, "GPU handle cannot be obtained"},
      {"gpu.query_errors", "gpu", S::kWarning, "NVML queries failed on a GPU"},
      {"gpu.recovery_action", "gpu", S::kCritical,
       "The driver asks for a recovery action (reset, reboot, drain)"},
      {"driver.wedged", "driver", S::kCritical,
       "Tasks stuck in the NVIDIA driver (uninterruptible sleep)"},
      {"fabric.not_registered", "fabric", S::kCritical,
       "GPU not registered with the NVSwitch fabric (Fabric Manager)"},
      {"fabric.unhealthy", "fabric", S::kWarning,
       "Fabric health degraded (bandwidth, routes, configuration)"},
      {"nvlink.link_down", "nvlink", S::kCritical,
       "An NVLink down while the GPU's siblings have it up"},
      {"nvlink.errors_growing", "nvlink", S::kWarning,
       "NVLink error counters grew during the sample window"},
      {"thermal.near_slowdown", "thermal", S::kWarning,
       "Temperature within a few degrees of the GPU's slowdown threshold"},
      {"memory.held_idle", "memory", S::kWarning, "GPU memory held by an idle process"},
      {"memory.held_no_process", "memory", S::kWarning, "GPU memory held with no visible process"},
      {"ecc.volatile_uncorrectable", "ecc", S::kCritical,
       "Uncorrectable ECC errors since the driver loaded"},
      {"ecc.retired_pages_pending", "ecc", S::kWarning,
       "Page retirement pending (needs a reset or reboot)"},
      {"ecc.retired_pages_limit", "ecc", S::kCritical, "Retired pages at the RMA limit"},
      {"ecc.remap_pending", "ecc", S::kWarning, "Row remapping pending (needs a GPU reset)"},
      {"ecc.remap_failure", "ecc", S::kCritical, "Row remapping failed (RMA criterion)"},
      {"ecc.aggregate_uncorrectable", "ecc", S::kWarning,
       "Uncorrectable ECC errors in the GPU's lifetime record"},
      {"ecc.retired_pages_dbe", "ecc", S::kWarning,
       "More double-bit retired pages than DCGM's soft limit"},
      {"ecc.remap_no_spare", "ecc", S::kWarning,
       "A memory bank has no spare rows left (row remapper histogram)"},
      {"pcie.link_downgraded", "pcie", S::kWarning, "PCIe link below its maximum while busy"},
      {"pcie.link_idle_low", "pcie", S::kInfo,
       "PCIe link lowered while idle (normal power saving)"},
      {"clocks.hw_slowdown", "clocks", S::kWarning, "Clocks cut by hardware slowdown"},
      {"clocks.thermal", "clocks", S::kWarning, "Clocks cut by thermal slowdown"},
      {"clocks.power_brake", "clocks", S::kWarning, "Clocks cut by the external power brake"},
      {"clocks.reliability", "clocks", S::kWarning,
       "Clocks held by the reliability limit for much of the window"},
      {"clocks.board_limit", "clocks", S::kWarning,
       "Clocks held by the board limit for much of the window"},
      {"persistence.off", "persistence", S::kWarning, "Persistence mode off"},
      {"disk.low_space", "disk", S::kWarning, "Low free space (critical below 3%)"},
      {"disk.low_inodes", "disk", S::kWarning, "Few free inodes (critical below 3%)"},
      {"disk.unreadable", "disk", S::kWarning, "Filesystem of a --path cannot be read"},
      {"data.bad", "data", S::kWarning, "Bad files in the job's output (--data)"},
      {"data.missing", "data", S::kWarning, "Samples missing below the highest index (--data)"},
      {"data.not_started", "data", S::kInfo, "Samples never started (--data)"},
      {"data.writer_active", "data", S::kWarning, "A process still writes into the data directory"},
      {"data.stale", "data", S::kInfo, "Stale temporary files in the data directory"},
      {"data.unreadable", "data", S::kWarning, "The data directory or some files cannot be read"},
      {"data.expect_mismatch", "data", S::kWarning,
       "--expect N and the files disagree: none found, or samples beyond N"},
      {"data.intact", "data", S::kOk, "Every file of the job's output intact (--data)"},
      {"mount.missing", "mount", S::kCritical,
       "A mount /etc/fstab or a .mount unit asks for is not mounted (writes fill the parent)"},
      {"mount.wrong_device", "mount", S::kCritical,
       "Another device is mounted where /etc/fstab or a .mount unit puts a volume"},
      {"mount.read_only", "mount", S::kCritical,
       "A filesystem mounted read-only after errors (or against its configuration)"},
      {"mount.network_or_overlay", "mount", S::kInfo,
       "A --path on a network filesystem (info) or a container's overlay (warning)"},
      {"gpu.repeat_offender", "gpu", S::kCritical,
       "The same Xid or recovery action on a GPU in several boots (RMA after three)"},
      {"incident.previous_boot_abrupt", "incident", S::kWarning,
       "The previous boot ended with no shutdown record (power loss, killed VM, hard hang)"},
      {"incident.kernel_panic", "incident", S::kWarning,
       "The previous boot ended in a kernel panic (pstore, kdump or the journal)"},
      {"incident.storage_errors_before_crash", "incident", S::kWarning,
       "Storage I/O errors, read-only remounts or resets in the crashed boot's last minutes"},
      {"clock.unsynchronised", "clock", S::kWarning,
       "System clock not synchronised (adjtimex or timedatectl): report times may be off"},
      {"clock.rtc_drift", "clock", S::kWarning,
       "System time differs from the hardware clock (RTC) by more than 120 s"},
      {"clock.future_files", "clock", S::kWarning,
       "Files in the inspected directories dated in the future"},
      {"kernel_log.unreadable", "kernel_log", S::kWarning, "Kernel log could not be read"},
      {"gpu.xid.*", "kernel_log", S::kWarning,
       "Xid error in the kernel log (severity from the catalogue)"},
      {"gpu.sxid.*", "kernel_log", S::kWarning, "NVSwitch SXid error in the kernel log"},
      {"gpu.fallen_off_bus_logged", "kernel_log", S::kCritical,
       "Kernel logged a GPU fallen off the bus"},
      {"kernel_log.app_fault_many_gpus", "kernel_log", S::kWarning,
       "The same MMU/SM fault on several GPUs at once: likely the application"},
  };
  return kChecks;
}

const CheckSpec* find_check(std::string_view id) {
  for (const CheckSpec& c : check_catalogue()) {
    std::string_view cid = c.id;
    if (cid == id) return &c;
    if (cid.ends_with(".*") && id.starts_with(cid.substr(0, cid.size() - 1))) return &c;
  }
  return nullptr;
}

Severity verdict_of(const std::vector<Finding>& findings) {
  Severity worst = Severity::kOk;
  for (const Finding& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

void judge(Report& report, const CheckOptions& options) {
  complete_gpu_identities(report.snapshot);
  const NodeSnapshot& s = report.snapshot;
  std::vector<Finding>& f = report.findings;
  // Each family appends its findings; order here is only a tie-breaker.
  check_nvml(s, f);
  check_presence(s, options, f);
  check_gpu_health(s, f);
  check_memory_holders(s, options, f);
  check_recovery_action(s, f);
  check_ecc(s, f);
  check_ecc_history(s, f);
  check_fabric_and_nvlink(s, f);
  check_pcie_and_persistence(s, f);
  check_thermal_and_limits(s, f);
  check_kernel_log(s, options, f);
  check_mounts(s, f);  // before the disks: mount first, then judge the space
  check_disks(s, f);
  check_data(s, f);
  check_incident(s, f);
  join_gpu_events(f);
  join_recovery_events(f);
  check_driver_wedged(s, f);  // after the GPU joins: it folds the NVML timeouts in
  check_history(s, f);        // after the joins: a joined Xid counts too
  if (options.running_as_root) drop_sudo(f);
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  report.verdict = verdict_of(f);
  // Nothing to judge: no NVIDIA GPU anywhere and no driver. Expecting GPUs
  // makes it a finding (gpu.count_mismatch) instead.
  report.could_not_check = nothing_to_judge(s) && options.expect_gpus.value_or(0) == 0;
  report.plan = make_plan(report);
}

}  // namespace gt
