#include "checks/registry.h"

#include <algorithm>

#include "checks/checks.h"
#include "checks/cuda_probe.h"
#include "checks/plan.h"

namespace gt {

const std::vector<CheckSpec>& check_catalogue() {
  using S = Severity;
  using St = PlanStage;
  using J = GpuJoin;
  using R = RemedyRule;
  using E = FindingEvent;
  // One row per finding, one line per row (catalogue.h says each column;
  // docs/design.md "Adding a finding"). A specific numbered id (gpu.xid.79)
  // comes before its family's ".*" row.
  // clang-format off
  static const std::vector<CheckSpec> kChecks = {
  //  id, family, severity, plan stage, GPU join, remedy, event, kept by the record as, alert, docs anchor, title
      {"nvml.library_missing", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "NVML library cannot be loaded (no driver installed)"},
      {"nvml.library_unusable", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "The library found is not a usable NVML"},
      {"nvml.driver_not_loaded", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "NVIDIA kernel driver not loaded"},
      {"nvml.version_mismatch", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "Driver/library version mismatch: NVML refuses to start"},
      {"nvml.no_permission", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "No permission to open the NVIDIA devices"},
      {"nvml.init_failed", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "NVML initialization failed (other error)"},
      {"nvml.unresponsive", "nvml", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kNvmlTimeout, "", "GpuTriageNodeCritical", "nvml-and-the-driver", "NVML did not answer within the timeout"},
      {"cuda.driver_mismatch", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kCuInit803, "", "GpuTriageNodeCritical", "cuda-readiness", "The libcuda a job loads is from another release than the kernel module: cuInit fails with 803"},
      {"cuda.compat_unsupported", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kCuInit804, "", "GpuTriageNodeCritical", "cuda-readiness", "A forward-compatibility libcuda on a GPU without forward compatibility: cuInit fails with 804"},
      {"cuda.compat_branch", "cuda", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: NVIDIA leaves what cuInit returns undocumented (info when the branch is not known)", "cuda-readiness", "A forward-compatibility libcuda over a driver branch NVIDIA does not support it on, or one whose designation is not known"},
      {"cuda.libraries_unread", "cuda", S::kInfo, St::kUnread, J::kApart, R::kByCommands, E::kAlone, "", "none: an unread source, said in the report", "cuda-readiness", "Which libcuda a job loads, or its release, could not be read"},
      {"driver.version_contradiction", "driver", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: the node still works; the plan step is the fix", "nvml-and-the-driver", "NVML answered, so its library is the module's release, yet its file names another"},
      {"driver.nvidia_smi_other_release", "driver", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note, said in the report", "nvml-and-the-driver", "The nvidia-smi first on PATH is another release than the driver: its header shows both"},
      {"driver.libraries_replaced", "driver", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: the processes still run; the plan step is the fix", "nvml-and-the-driver", "Running processes map driver libraries replaced on disk since they started"},
      {"cuda.release_contradicted", "cuda", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: CUDA works (a process proves it); the release read is wrong", "cuda-readiness", "A libcuda read as another release than the module (or predicted to fail), yet a process holds GPU memory through it or the probe started CUDA with it"},
      {"gpu.stuck", "gpu", S::kWarning, St::kGpu, J::kEvent, R::kByCommands, E::kAlone, "", "none: a warning, said in the report", "gpu-presence-and-health", "A GPU busy over the whole window with no process, no memory and idle power"},
      {"gpu.all_present", "gpu", S::kOk, St::kGpu, J::kApart, R::kByCommands, E::kAlone, "", "none: a positive statement", "gpu-presence-and-health", "All GPUs present and answering"},
      {"gpu.count_mismatch", "gpu", S::kCritical, St::kGpu, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuCountMismatch", "gpu-presence-and-health", "Fewer GPUs than expected (NVML vs PCI bus vs --expect-gpus)"},
      {"bundle.unverified", "bundle", S::kWarning, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a bundle's replay only, never what serve collects", "gpu-presence-and-health", "A replayed bundle's members differ from its manifest.json"},
      {"capture.incomplete", "gpu", S::kWarning, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a saved capture only, never what serve collects", "gpu-presence-and-health", "A capture names more attached GPUs than it describes (trimmed)"},
      {"gpu.missing_from_nvml", "gpu", S::kCritical, St::kGpu, J::kDying, R::kReboot, E::kDyingMissing, "", "GpuTriageGpuMissing", "gpu-presence-and-health", "A GPU on the PCI bus that NVML cannot see (fallen off the bus)"},
      {"gpu.no_driver_bound", "gpu", S::kCritical, St::kGpu, J::kEvent, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "A GPU on the PCI bus with no driver bound"},
      {"gpu.lost", "gpu", S::kCritical, St::kGpu, J::kDying, R::kReboot, E::kDyingLead, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "GPU lost (NVML error 15)"},
      {"gpu.unresponsive", "gpu", S::kCritical, St::kGpu, J::kDying, R::kReboot, E::kDyingTimeout, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "GPU did not answer within the timeout"},
      {"gpu.inaccessible", "gpu", S::kCritical, St::kGpu, J::kEvent, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "GPU handle cannot be obtained"},
      {"gpu.query_errors", "gpu", S::kWarning, St::kGpu, J::kEvent, R::kByCommands, E::kAlone, "", "none: values unknown (absent series), not a fault", "gpu-presence-and-health", "NVML queries failed on a GPU"},
      {"gpu.recovery_action", "gpu", S::kCritical, St::kGpu, J::kEvent, R::kByCommands, E::kRecoveryLead, "a driver recovery action", "GpuTriageGpuRecoveryActionRequired", "gpu-presence-and-health", "The driver asks for a recovery action (reset, reboot, drain)"},
      {"driver.wedged", "driver", S::kCritical, St::kDriver, J::kApart, R::kByCommands, E::kWedgedLead, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "Tasks stuck in the NVIDIA driver (uninterruptible sleep)"},
      {"fabric.not_registered", "fabric", S::kCritical, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "GPU not registered with the NVSwitch fabric (Fabric Manager)"},
      {"fabric.unhealthy", "fabric", S::kWarning, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageGpuLinkDegraded", "gpu-presence-and-health", "Fabric health degraded (bandwidth, routes, configuration)"},
      {"nvlink.link_down", "nvlink", S::kCritical, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "gpu-presence-and-health", "An NVLink down while the GPU's siblings have it up"},
      {"nvlink.errors_growing", "nvlink", S::kWarning, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageGpuLinkDegraded", "gpu-presence-and-health", "NVLink error counters grew during the sample window"},
      {"topology.p2p_degraded", "topology", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: a placement fact, not a fault that comes and goes; gpu_triage_finding shows it", "gpu-presence-and-health", "A TP/PP server's GPU pair cannot use peer-to-peer, or crosses the CPU interconnect where its siblings do not"},
      {"topology.rank_far_numa", "topology", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: a placement fact, not a fault that comes and goes; gpu_triage_finding shows it", "gpu-presence-and-health", "A server's process may only run on CPUs away from its GPU's NUMA node"},
      {"topology.numa_split", "topology", S::kInfo, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: information", "gpu-presence-and-health", "A TP/PP server's GPUs sit on more than one NUMA node"},
      {"rdma.port_down", "rdma", S::kWarning, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "none: the fabric's own monitoring (UFM, the SM) owns its ports; gpu_triage_finding shows it", "rdma-readiness", "An InfiniBand port, or a RoCE port whose net device is up, is not ACTIVE"},
      {"rdma.rate_mismatch", "rdma", S::kWarning, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "none: a link fact; gpu_triage_finding shows it", "rdma-readiness", "Active RDMA ports of one board type run at different rates"},
      {"rdma.peermem_missing", "rdma", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: configuration, not a fault; gpu_triage_finding shows it", "rdma-readiness", "RDMA ports active and NVIDIA GPUs present, but no GPUDirect RDMA peer-memory module (info where dma-buf may stand in)"},
      {"thermal.near_slowdown", "thermal", S::kWarning, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "gpu-presence-and-health", "Temperature within a few degrees of the GPU's slowdown threshold"},
      {"memory.held_idle", "memory", S::kWarning, St::kServers, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageIdleServerHoldingMemory", "memory-holders", "GPU memory held by an idle process"},
      {"memory.held_no_process", "memory", S::kWarning, St::kHolders, J::kApart, R::kByCommands, E::kAlone, "", "none: a PID namespace or a leftover context; the dashboard shows the memory", "memory-holders", "GPU memory held with no visible process"},
      {"ecc.volatile_uncorrectable", "ecc", S::kCritical, St::kHardware, J::kCounters, R::kReset, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "Uncorrectable ECC errors since the driver loaded"},
      {"ecc.retired_pages_pending", "ecc", S::kWarning, St::kHardware, J::kCounters, R::kReset, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "Page retirement pending (needs a reset or reboot)"},
      {"ecc.retired_pages_limit", "ecc", S::kCritical, St::kHardware, J::kCounters, R::kRma, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "Retired pages at the RMA limit"},
      {"ecc.remap_pending", "ecc", S::kWarning, St::kHardware, J::kCounters, R::kReset, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "Row remapping pending (needs a GPU reset)"},
      {"ecc.remap_failure", "ecc", S::kCritical, St::kHardware, J::kCounters, R::kRma, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "Row remapping failed (RMA criterion)"},
      {"ecc.aggregate_uncorrectable", "ecc", S::kWarning, St::kHardware, J::kCounters, R::kByCommands, E::kAlone, "", "GpuTriageGpuMemoryErrorsGrowing", "memory-errors", "Uncorrectable ECC errors in the GPU's lifetime record"},
      {"ecc.retired_pages_dbe", "ecc", S::kWarning, St::kHardware, J::kCounters, R::kByCommands, E::kAlone, "", "none: a soft limit; GpuTriageGpuRetiredPagesNearLimit warns before the RMA limit", "memory-errors", "More double-bit retired pages than DCGM's soft limit"},
      {"ecc.remap_no_spare", "ecc", S::kWarning, St::kHardware, J::kCounters, R::kRma, E::kAlone, "", "GpuTriageGpuMemoryErrors", "memory-errors", "A memory bank has no spare rows left (row remapper histogram)"},
      {"pcie.link_downgraded", "pcie", S::kWarning, St::kHardware, J::kLinks, R::kByCommands, E::kAlone, "", "GpuTriageGpuLinkDegraded", "pcie-clocks-persistence", "PCIe link below its maximum while busy"},
      {"pcie.aer_fatal", "pcie", S::kCritical, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "pcie-errors-aer", "A fatal uncorrectable PCIe error (AER) since boot on a GPU or a bridge above it: the link was reset"},
      {"pcie.aer_nonfatal", "pcie", S::kWarning, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuLinkDegraded", "pcie-errors-aer", "A non-fatal uncorrectable PCIe error (AER) since boot on a GPU or a bridge above it"},
      {"pcie.aer_correctable_growing", "pcie", S::kWarning, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuLinkDegraded", "pcie-errors-aer", "PCIe correctable errors (AER) on a GPU or a bridge above it growing fast (window or since the last run)"},
      {"pcie.link_idle_low", "pcie", S::kInfo, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: normal power saving", "pcie-clocks-persistence", "PCIe link lowered while idle (normal power saving)"},
      {"clocks.hw_slowdown", "clocks", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "pcie-clocks-persistence", "Clocks cut by hardware slowdown"},
      {"clocks.thermal", "clocks", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "pcie-clocks-persistence", "Clocks cut by thermal slowdown"},
      {"clocks.power_brake", "clocks", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "pcie-clocks-persistence", "Clocks cut by the external power brake"},
      {"clocks.reliability", "clocks", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "pcie-clocks-persistence", "Clocks held by the reliability limit for much of the window"},
      {"clocks.board_limit", "clocks", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageGpuThrottled", "pcie-clocks-persistence", "Clocks held by the board limit for much of the window"},
      {"persistence.off", "persistence", S::kWarning, St::kTuning, J::kApart, R::kByCommands, E::kAlone, "", "none: configuration, not a fault", "pcie-clocks-persistence", "Persistence mode off"},
      {"disk.low_space", "disk", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: node_exporter's filesystem alerts own disk space", "disk", "Low free space (critical below 3%)"},
      {"disk.low_inodes", "disk", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: node_exporter's filesystem alerts own inodes", "disk", "Few free inodes (critical below 3%)"},
      {"disk.unreadable", "disk", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: a --path of one triage, not collected by serve", "disk", "Filesystem of a --path cannot be read"},
      {"data.bad", "data", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "Bad files in the job's output (--data)"},
      {"data.missing", "data", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "Samples missing below the highest index (--data)"},
      {"data.not_started", "data", S::kInfo, St::kResume, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "Samples never started (--data)"},
      {"data.writer_active", "data", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "A process still writes into the data directory"},
      {"data.stale", "data", S::kInfo, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "Stale temporary files in the data directory"},
      {"data.unreadable", "data", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "The data directory or some files cannot be read"},
      {"data.expect_mismatch", "data", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "--expect N and the files disagree: none found, or samples beyond N"},
      {"data.intact", "data", S::kOk, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: a job's output, checked with --data, not by serve", "the-jobs-data---data-dir", "Every file of the job's output intact (--data)"},
      {"cuda.uvm_missing", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "cuda-device-nodes-and-limits", "/dev/nvidia-uvm or the nvidia_uvm module missing: CUDA fails (999/100) though NVML answers"},
      {"cuda.device_node_missing", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "cuda-device-nodes-and-limits", "/dev/nvidiactl, a GPU's /dev/nvidiaN or /dev/nvidia-caps (MIG) missing here"},
      {"cuda.compute_mode_blocked", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "cuda-device-nodes-and-limits", "Compute mode refuses a new process (Exclusive_Process with a holder, Prohibited)"},
      {"cuda.runtime_too_new", "cuda", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "cuda-device-nodes-and-limits", "A job's CUDA stack built for a newer CUDA than the driver supports"},
      {"cuda.runtime_unknown", "cuda", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: only --python asks it, serve never does", "cuda-device-nodes-and-limits", "--python's CUDA stack could not be read (version.py unreadable, unparsable, nothing found)"},
      {"cuda.runtime_cpu_only", "cuda", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: only --python asks it, serve never does", "cuda-device-nodes-and-limits", "--python's torch is a CPU-only build: it will not use the GPUs"},
      {"nccl.dev_shm_small", "nccl", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "cuda-device-nodes-and-limits", "/dev/shm too small for a job's NCCL peers on this node: 64 MiB or less, or below NCCL's SHM need per local rank"},
      {"nccl.memlock_limited", "nccl", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: only multi-node NCCL over RDMA meets it; gpu_triage_finding shows it", "cuda-device-nodes-and-limits", "A GPU server's memlock limit is not unlimited on a node with RDMA devices"},
      {"mount.missing", "mount", S::kCritical, St::kMounts, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "mounts-and-history", "A mount /etc/fstab or a .mount unit asks for is not mounted (writes fill the parent)"},
      {"mount.wrong_device", "mount", S::kCritical, St::kMounts, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "mounts-and-history", "Another device is mounted where /etc/fstab or a .mount unit puts a volume"},
      {"mount.read_only", "mount", S::kCritical, St::kMounts, J::kApart, R::kByCommands, E::kAlone, "", "GpuTriageNodeCritical", "mounts-and-history", "A filesystem mounted read-only after errors (or against its configuration)"},
      {"mount.network_or_overlay", "mount", S::kInfo, St::kMounts, J::kApart, R::kByCommands, E::kAlone, "", "none: a --path of one triage, not collected by serve", "mounts-and-history", "A --path on a network filesystem (info) or a container's overlay (warning)"},
      {"mount.unread", "mount", S::kWarning, St::kUnread, J::kApart, R::kByCommands, E::kAlone, "", "none: an unread source, said in the report", "mounts-and-history", "The mount table or configuration could not be read: the mount checks did not run"},
      {"change.container_recreated", "change", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: said in the boot after the change; the plan step is the fix", "what-changed", "The container was recreated since the job last ran (warning when a local patch is gone with it)"},
      {"change.patch_gone", "change", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: said in the boot after the change; the plan step is the fix", "what-changed", "A server package's locally modified files are pristine again (reinstalled)"},
      {"change.data_device", "change", S::kWarning, St::kMounts, J::kApart, R::kByCommands, E::kAlone, "", "none: said in the boot after the change; the plan step is the fix", "what-changed", "A data path is on another device than when the job last ran"},
      {"change.gpu_replaced", "change", S::kWarning, St::kHardware, J::kApart, R::kByCommands, E::kAlone, "", "none: said in the boot after the change", "what-changed", "Another board (serial) at a GPU's bus id since the job last ran"},
      {"change.gpu_moved", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "The same GPU (UUID) at another bus id"},
      {"change.vbios", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "A GPU's VBIOS changed since the job last ran"},
      {"change.driver", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "The driver, libcuda or kernel changed since the job last ran"},
      {"change.package_version", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "A package of the GPU servers' python changed version"},
      {"change.container_after_job", "change", S::kWarning, St::kData, J::kApart, R::kByCommands, E::kAlone, "", "none: said after the change; the plan step is the fix", "what-changed", "Without a record: the job's container (this one, or a GPU server's that mounts the job's directory) was created after the job last wrote"},
      {"change.server_unit", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "A systemd unit starts a GPU server now and ran none when the job last ran (it starts again after every boot)"},
      {"change.local_patch", "change", S::kInfo, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: a note", "what-changed", "A server package has files that differ from its wheel's RECORD (a local patch)"},
      {"gpu.repeat_offender", "gpu", S::kCritical, St::kGpu, J::kRecord, R::kByRecord, E::kAlone, "", "GpuTriageNodeCritical", "mounts-and-history", "The same Xid or recovery action on a GPU in several boots (RMA after three)"},
      {"incident.previous_boot_abrupt", "incident", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: read once after a crash, not a state to page on", "what-happened", "The previous boot ended with no shutdown record (power loss, killed VM, hard hang)"},
      {"incident.kernel_panic", "incident", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: read once after a crash, not a state to page on", "what-happened", "The previous boot ended in a kernel panic (pstore, kdump or the journal)"},
      {"incident.storage_errors_before_crash", "incident", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: read once after a crash, not a state to page on", "what-happened", "Storage I/O errors, read-only remounts or resets in the crashed boot's last minutes"},
      {"incident.hung_tasks_before_crash", "incident", S::kWarning, St::kDisk, J::kApart, R::kByCommands, E::kAlone, "", "none: read once after a crash, not a state to page on", "what-happened", "Hung tasks and no storage error in the crashed boot's last minutes (a stalled backing store)"},
      {"clock.unsynchronised", "clock", S::kWarning, St::kClock, J::kApart, R::kByCommands, E::kAlone, "", "none: node_exporter's timex alerts own the clock", "what-happened", "System clock not synchronised (adjtimex or timedatectl): report times may be off"},
      {"clock.rtc_drift", "clock", S::kWarning, St::kClock, J::kApart, R::kByCommands, E::kAlone, "", "none: node_exporter's timex alerts own the clock", "what-happened", "System time differs from the hardware clock (RTC) by more than 120 s"},
      {"clock.future_files", "clock", S::kWarning, St::kClock, J::kApart, R::kByCommands, E::kAlone, "", "none: a --path of one triage, not collected by serve", "what-happened", "Files in the inspected directories dated in the future"},
      {"kernel_log.unreadable", "kernel_log", S::kWarning, St::kUnread, J::kApart, R::kByCommands, E::kAlone, "", "none: an unread source, said in the report", "kernel-log", "Kernel log could not be read"},
      {"gpu.xid.79", "kernel_log", S::kWarning, St::kGpu, J::kEvent, R::kByXid, E::kDyingXid, "Xid {}", "GpuTriageGpuXidCritical", "kernel-log", "Xid 79 (fallen off the bus): one more sign of the GPU lost"},
      {"gpu.xid.154", "kernel_log", S::kWarning, St::kGpu, J::kEvent, R::kByXid, E::kRecoveryXid, "Xid {}", "GpuTriageGpuXidCritical", "kernel-log", "Xid 154 (recovery action changed): joins the driver's recovery action"},
      {"gpu.xid.*", "kernel_log", S::kWarning, St::kGpu, J::kEvent, R::kByXid, E::kAlone, "Xid {}", "GpuTriageGpuXidCritical", "kernel-log", "Xid error in the kernel log (severity from the catalogue)"},
      {"gpu.sxid.*", "kernel_log", S::kWarning, St::kGpu, J::kEvent, R::kByCommands, E::kAlone, "", "GpuTriageGpuXidCritical", "kernel-log", "NVSwitch SXid error in the kernel log"},
      {"gpu.fallen_off_bus_logged", "kernel_log", S::kCritical, St::kGpu, J::kEvent, R::kReboot, E::kDyingLogged, "", "GpuTriageNodeCritical", "kernel-log", "Kernel logged a GPU fallen off the bus"},
      {"kernel_log.app_fault_many_gpus", "kernel_log", S::kWarning, St::kLast, J::kApart, R::kByCommands, E::kAlone, "", "none: the application's fault, not the node's", "kernel-log", "The same MMU/SM fault on several GPUs at once: likely the application"},
      // gpu-triage cuda (issue 35): what the probe proved, never collected by serve.
      {"cuda.library_unusable", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "The libcuda a job would load cannot be loaded, or lacks a symbol the probe calls"},
      {"cuda.init_failed", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kCuInitProof, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "CUDA cannot start on any GPU: cuInit returns an error"},
      {"cuda.no_device", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "cuInit finds no CUDA device (info when NVML lists none either)"},
      {"cuda.probe_failed", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "A CUDA step failed on a GPU (context, allocation, kernel launch...)"},
      {"cuda.probe_stuck", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "A CUDA call did not return within the GPU's deadline"},
      {"cuda.probe_late", "cuda_probe", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "A GPU's probe was cut off by its deadline while its calls still returned: slow, not stuck"},
      {"cuda.probe_crashed", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "The probe's child for a GPU died (a signal) or ended without reporting"},
      {"cuda.readback_mismatch", "cuda_probe", S::kCritical, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "GPU memory read back differs from what was written"},
      {"cuda.copy_slow", "cuda_probe", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "Pinned copies far below what the GPU's PCIe link carries"},
      {"cuda.peer_unreachable", "cuda_probe", S::kWarning, St::kCuda, J::kApart, R::kByCommands, E::kAlone, "", "none: gpu-triage cuda runs on demand, serve never probes", "the-cuda-probe-gpu-triage-cuda", "GPUs of one group cannot access each other's memory (NCCL falls back to host memory)"},
  };
  // clang-format on
  return kChecks;
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
  check_gpu_stuck(s, f);
  check_memory_holders(s, options, f);
  check_recovery_action(s, f);
  check_ecc(s, f);
  check_ecc_history(s, f);
  check_fabric_and_nvlink(s, f);
  check_pcie_and_persistence(s, f);
  check_pcie_aer(s, f);
  check_thermal_and_limits(s, f);
  check_kernel_log(s, options, f);
  check_mounts(s, f);  // before the disks: mount first, then judge the space
  check_disks(s, f);
  check_data(s, f);
  // After the mounts: of two critical steps of one rank, the mount comes first.
  check_cuda_libraries(s, f);
  check_libraries_replaced(s, f);
  check_nvidia_smi(s, f);
  check_cuda_node(s, f);
  check_server_topology(s, f);
  check_rank_placement(s, f);
  check_rdma(s, f);
  check_incident(s, f);
  check_bundle_replay(s, f);
  join_gpu_events(f);
  join_recovery_events(f);
  check_driver_wedged(s, f);  // after the GPU joins: it folds the NVML timeouts in
  check_history(s, f);        // after the joins: a joined Xid counts too
  check_changes(s, f);
  add_change_timeline(report.snapshot);
  check_cuda_probe(s, f);  // last: what the probe proved, beside every prediction
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
