// NodeSnapshot: the plain data every collector fills and every later layer
// (checks, renderers) reads. No behaviour lives here.
//
// Invariant: a value that is unknown, unsupported or failed to read is
// std::nullopt (null in JSON), never 0. Units are in the field names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/bundle.h"
#include "model/cpu_list.h"
#include "model/cuda_probe_result.h"
#include "model/cuda_readiness.h"
#include "model/data_check.h"
#include "model/driver_recovery.h"
#include "model/fabric_state.h"
#include "model/history.h"
#include "model/incident.h"
#include "model/kernel_log_event.h"
#include "model/mounts.h"
#include "model/nvml_init.h"
#include "model/owner_kind.h"
#include "model/pcie_aer.h"
#include "model/rdma.h"
#include "model/server.h"

namespace gt {

/// min/mean/max over the sample window, plus how many samples were taken.
struct SampleStats {
  double min = 0;
  double mean = 0;
  double max = 0;
  int samples = 0;
  bool operator==(const SampleStats&) const = default;
};

/// Who started a process, from /proc/PID/cgroup (ecosystem.md section 7).
struct ProcessOwner {
  OwnerKind kind = OwnerKind::kCgroup;      ///< model/owner_kind.h
  std::string name;                         ///< unit name, container id, pod uid, job id...
  std::optional<std::string> container_id;  ///< when a pod's container is known
  std::string cgroup_path;                  ///< the raw cgroup path it came from
  bool operator==(const ProcessOwner&) const = default;
};

/// A process NVML reports on one GPU, joined with what /proc says about it.
struct GpuProcess {
  uint32_t pid = 0;
  std::string type;                           ///< "compute" or "graphics" (or "compute+graphics")
  std::optional<uint64_t> used_memory_bytes;  ///< null on WDDM / not available
  std::optional<uint32_t> gpu_instance_id;    ///< MIG only
  std::optional<uint32_t> compute_instance_id;

  // From /proc (all null when the PID is not visible in this namespace).
  bool visible = false;                        ///< /proc/PID exists in this PID namespace
  std::optional<std::string> visibility_note;  ///< why not, when not visible
  std::optional<std::string> name;             ///< /proc/PID/comm
  std::optional<std::string> cmdline;          ///< argv joined by spaces
  std::optional<uint32_t> uid;
  std::optional<std::string> user;
  std::optional<int64_t> start_time_unix_s;
  std::optional<uint32_t> ppid;
  std::optional<std::vector<uint32_t>> nspid;  ///< NSpid: line of status
  /// Cpus_allowed_list: line of status, the CPUs it may run on (its
  /// affinity within its cpuset); null when not read or malformed.
  std::optional<CpuList> cpus_allowed;
  std::optional<ProcessOwner> owner;
  bool operator==(const GpuProcess&) const = default;
};

/// An nvidia-smi binary on the PATH and the release it was built from.
struct NvidiaSmiBinary {
  std::string path;                    ///< as the node (or its container) names it
  std::optional<std::string> release;  ///< "565.57.01"; null: not found in its bytes
  /// The GPU server's Docker container it is on the PATH of (its name, else
  /// its short id: what `docker exec` takes), read in that container's
  /// root; null: the node's own.
  std::optional<std::string> container;
  bool operator==(const NvidiaSmiBinary&) const = default;
};

/// A NUMA node of the machine (/sys/devices/system/node/nodeN).
struct NumaNode {
  uint32_t id = 0;
  std::optional<CpuList> cpus;  ///< cpulist; empty for a memory-only node, null if unreadable
  bool operator==(const NumaNode&) const = default;
};

/// A device on the PCI bus with NVIDIA's vendor id and a display/3D class.
struct PciDevice {
  std::string bus_id;  ///< "0000:19:00.0" as sysfs names it
  std::optional<uint32_t> device_id;
  std::optional<uint32_t> class_code;
  std::optional<std::string> driver;  ///< bound driver ("nvidia"), null if none
  std::optional<double> current_link_speed_gts;
  std::optional<double> max_link_speed_gts;
  std::optional<uint32_t> current_link_width;
  std::optional<uint32_t> max_link_width;
  std::optional<uint32_t> current_link_gen;  ///< derived from the speed
  std::optional<uint32_t> max_link_gen;
  std::optional<uint32_t> numa_node;
  /// From the driver's /proc/driver/nvidia/gpus/<bus>/information (present
  /// while nvidia.ko has the device, even when NVML lost it): "Model:" and
  /// "GPU UUID:"; null when absent or unreadable ("GPU-????...").
  std::optional<std::string> model;
  std::optional<std::string> uuid;
  /// Its AER counters (model/pcie_aer.h): each null where not read.
  AerCounters aer;
  /// The bridges above it, root port first, from its sysfs path
  /// (/sys/devices/pci0000:15/0000:15:01.0/.../<bus_id>): [] when it sits
  /// on the host bridge itself; null when the path is not known (no link,
  /// as in a fixture tree of plain folders, or a path of no known form).
  std::optional<std::vector<std::string>> upstream_bridges;
  bool operator==(const PciDevice&) const = default;
};

struct EccCounts {
  std::optional<uint64_t> volatile_corrected;
  std::optional<uint64_t> volatile_uncorrected;
  std::optional<uint64_t> aggregate_corrected;
  std::optional<uint64_t> aggregate_uncorrected;
  bool operator==(const EccCounts&) const = default;
};

struct RetiredPages {
  std::optional<uint32_t> single_bit;
  std::optional<uint32_t> double_bit;
  std::optional<bool> pending;
  bool operator==(const RetiredPages&) const = default;
};

struct RemappedRows {
  std::optional<uint32_t> correctable;
  std::optional<uint32_t> uncorrectable;
  std::optional<bool> pending;
  std::optional<bool> failure;
  bool operator==(const RemappedRows&) const = default;
};

struct PcieLink {
  std::optional<uint32_t> current_gen;
  std::optional<uint32_t> max_gen;  ///< min(device, system)
  std::optional<uint32_t> device_max_gen;
  std::optional<uint32_t> current_width;
  std::optional<uint32_t> max_width;
  std::optional<uint32_t> replay_counter;
  bool operator==(const PcieLink&) const = default;
};

/// The row remapper's banks by spare rows left (nvml-abi 8.8,
/// GetRowRemapperHistogram; XML row_remapper_histogram). A bank in `none`
/// has no spare row left: its next failing row cannot be remapped.
struct RowRemapperHistogram {
  std::optional<uint32_t> max;  ///< all spare rows available
  std::optional<uint32_t> high;
  std::optional<uint32_t> partial;
  std::optional<uint32_t> low;
  std::optional<uint32_t> none;  ///< no spare rows left
  bool operator==(const RowRemapperHistogram&) const = default;
};

/// The driver's own verdict on what a GPU needs (nvml-abi 8.3): field 230
/// (GET_GPU_RECOVERY_ACTION), else the deprecated 226/227, or the capture's
/// gpu_recovery_action / gpu_reset_status. All null when not reported.
struct RecoveryState {
  /// kUnknown: a value we cannot name, never read as healthy; action_code
  /// / action_text say what it was (model/driver_recovery.h).
  std::optional<RecoveryAction> action;
  std::optional<uint32_t> action_code;              ///< NVML's number, when from NVML
  std::optional<std::string> action_text;           ///< the capture's words, when from XML
  std::optional<bool> reset_required;               ///< XML reset_required / field 226
  std::optional<bool> drain_and_reset_recommended;  ///< XML / field 227
  /// The two flags came from NVML's deprecated fields 226/227, whose value
  /// encoding no header documents (read 0 no, 1 yes): judged milder.
  bool flags_from_deprecated_fields = false;
  bool operator==(const RecoveryState&) const = default;
};

/// NVSwitch fabric registration (nvml-abi 8.4). Null on the GPU when the
/// GPU has no fabric (NOT_SUPPORTED, PCIe boards).
struct FabricInfo {
  std::optional<FabricState> state;
  /// NVML's number when state is kUnknown (a state this version cannot name).
  std::optional<uint32_t> state_code;
  /// Registration result once completed: "success" or the NVML return name
  /// / the capture's text.
  std::optional<std::string> status;
  std::optional<std::string> clique_id;
  std::optional<std::string> cluster_uuid;
  std::optional<uint32_t> health_mask;  ///< raw, when from NVML
  // Decoded health (null: not reported by this driver/GPU).
  std::optional<bool> bandwidth_degraded;
  std::optional<bool> route_recovery_in_progress;
  std::optional<bool> route_unhealthy;
  std::optional<bool> access_timeout_recovery;
  /// null or "none" when correct; else "wrong_sysguid", "wrong_chassis_serial",
  /// "no_partition", "insufficient_nvlinks", "incompatible_gpu_firmware",
  /// "invalid_location", "gpu_state_invalid", or "unknown(N)"
  std::optional<std::string> incorrect_configuration;
  std::optional<FabricHealthSummary> health_summary;  ///< v3 / 590 XML
  /// NVML's number when health_summary is kUnknown.
  std::optional<uint32_t> health_summary_code;
  bool operator==(const FabricInfo&) const = default;
};

/// NVLink error counters (nvml-abi 8.5, GetNvLinkErrorCounter).
struct NvLinkCounters {
  std::optional<uint64_t> crc_flit;
  std::optional<uint64_t> crc_data;
  std::optional<uint64_t> replay;
  std::optional<uint64_t> recovery;
  bool operator==(const NvLinkCounters&) const = default;
};

/// One NVLink of a GPU.
struct NvLink {
  uint32_t link = 0;
  std::optional<bool> active;                     ///< GetNvLinkState
  std::optional<uint32_t> version;                ///< GetNvLinkVersion as NVML numbers it
  std::optional<std::string> remote_pci_bus_id;   ///< canonical "0000:19:00.0"
  std::optional<std::string> remote_device_type;  ///< "gpu", "switch", "ibmnpu", "unknown"
  NvLinkCounters errors;                          ///< at the end of the sample window
  /// Growth of each counter between the window's first and last read; null
  /// when read once (no window) or not readable.
  NvLinkCounters errors_growth;
  bool operator==(const NvLink&) const = default;
};

/// How this GPU reaches one other GPU (GetTopologyCommonAncestor and
/// GetP2PStatus, asked from this GPU towards the peer). Every field is null
/// when the driver did not say (NOT_SUPPORTED is unknown, never "ok").
struct GpuPeer {
  uint32_t index = 0;  ///< the peer's NVML index
  /// The closest thing both sit under: "internal" (one board), "single"
  /// (one PCIe switch: PIX), "multiple" (switches: PXB), "hostbridge"
  /// (PHB), "node" (one NUMA node: NODE), "system" (across the CPU
  /// interconnect: SYS).
  std::optional<std::string> level;
  /// Each capability's status: "ok", "chipset_not_supported",
  /// "gpu_not_supported", "ioh_topology_not_supported",
  /// "disabled_by_regkey", "not_supported", "unknown".
  std::optional<std::string> p2p_read;
  std::optional<std::string> p2p_write;
  std::optional<std::string> p2p_nvlink;
  std::optional<std::string> p2p_atomics;
  bool operator==(const GpuPeer&) const = default;
};

/// Temperatures against the GPU's own limits (nvml-abi 8.6). Thresholds
/// are absolute degrees C; on Ada+ the driver reports them on the T.Limit
/// scale instead, so only the margin is known.
struct ThermalState {
  std::optional<int32_t> shutdown_threshold_c;
  std::optional<int32_t> slowdown_threshold_c;
  std::optional<int32_t> gpu_max_threshold_c;  ///< clocks may drop below base above it
  std::optional<int32_t> memory_max_threshold_c;
  std::optional<int32_t> memory_temperature_c;  ///< HBM boards (field 82)
  /// Degrees C left before the nearest slowdown threshold
  /// (GetMarginTemperature; XML gpu_temp_tlimit minus the slowdown
  /// T.Limit threshold; or slowdown threshold - temperature).
  std::optional<int32_t> slowdown_margin_c;
  bool operator==(const ThermalState&) const = default;
};

/// Time a GPU's clocks were held by each limit (nvml-abi 8.7): the share
/// (0..1) of the sample window, from the driver's cumulative counters read
/// at the window's start and end. Null when unreadable or no window.
struct LimitTime {
  std::optional<double> sw_power_cap_share;     ///< field 74 / policy POWER (normal under load)
  std::optional<double> sync_boost_share;       ///< 76
  std::optional<double> board_limit_share;      ///< 77
  std::optional<double> low_utilization_share;  ///< 78 (normal)
  std::optional<double> reliability_share;      ///< 79
  std::optional<double> sw_thermal_share;       ///< policy THERMAL / 251|269
  std::optional<double> hw_thermal_share;       ///< 252|270
  std::optional<double> hw_power_brake_share;   ///< 253|271
  /// The capture's cumulative clocks_event_reasons_counters (590+), in
  /// microseconds since the driver loaded; no share can be had from one read.
  std::optional<uint64_t> sw_power_cap_total_us;
  std::optional<uint64_t> sync_boost_total_us;
  std::optional<uint64_t> sw_thermal_total_us;
  std::optional<uint64_t> hw_thermal_total_us;
  std::optional<uint64_t> hw_power_brake_total_us;
  bool operator==(const LimitTime&) const = default;
};

/// A MIG device (nvml-abi 8.9). Its processes are the parent GPU's
/// processes with the same gpu_instance_id / compute_instance_id.
struct MigDevice {
  uint32_t index = 0;
  std::optional<uint32_t> gpu_instance_id;
  std::optional<uint32_t> compute_instance_id;
  std::optional<std::string> uuid;
  std::optional<std::string> name;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> memory_free_bytes;
  std::optional<uint64_t> memory_reserved_bytes;
  std::optional<uint32_t> multiprocessor_count;
  std::optional<uint64_t> volatile_sram_uncorrectable;
  bool operator==(const MigDevice&) const = default;
};

/// Status of one GPU's collection.
enum class GpuStatus {
  kOk,            ///< every query answered (some may be unsupported)
  kLost,          ///< NVML_ERROR_GPU_IS_LOST
  kUnresponsive,  ///< a call did not return before the deadline
  kInaccessible,  ///< handle could not be obtained (no permission, ...)
};
const char* gpu_status_name(GpuStatus s);

struct GpuState {
  uint32_t index = 0;
  GpuStatus status = GpuStatus::kOk;
  std::optional<std::string> status_detail;  ///< e.g. the call it hung in
  std::optional<std::string> stuck_in_call;

  std::optional<std::string> name;
  std::optional<std::string> uuid;
  std::optional<std::string> serial;
  std::optional<std::string> vbios_version;      ///< "96.00.99.00.01"
  std::optional<std::string> board_part_number;  ///< "692-2G520-0200-000"
  std::optional<std::string> pci_bus_id;         ///< "00000000:19:00.0" (NVML form)
  std::optional<uint32_t> pci_device_id;         ///< (device << 16) | vendor

  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> memory_free_bytes;
  std::optional<uint64_t> memory_reserved_bytes;  ///< v2 call only

  std::optional<SampleStats> utilization_gpu_pct;
  std::optional<SampleStats> utilization_memory_pct;

  std::optional<int32_t> temperature_c;
  std::optional<double> power_draw_w;
  std::optional<double> power_limit_w;
  std::optional<uint32_t> pstate;  ///< 0..15
  std::optional<uint32_t> fan_speed_pct;
  std::optional<bool> persistence_mode;
  std::optional<std::string> compute_mode;
  std::optional<bool> mig_mode_current;
  std::optional<bool> mig_mode_pending;
  std::optional<bool> ecc_mode_current;
  std::optional<bool> ecc_mode_pending;
  EccCounts ecc;
  RetiredPages retired_pages;
  RemappedRows remapped_rows;
  std::optional<RowRemapperHistogram> row_remapper_histogram;
  RecoveryState recovery;
  std::optional<FabricInfo> fabric;  ///< null: no fabric (PCIe boards) or unread
  /// Every link NVML reports (null: no NVLink / not supported / not read).
  std::optional<std::vector<NvLink>> nvlinks;
  /// Every other GPU as this one reaches it (null: not asked, or the
  /// driver answered nothing for any pair).
  std::optional<std::vector<GpuPeer>> peers;
  ThermalState thermal;
  LimitTime limit_time;
  /// The clock event reasons mask read at each utilization sample, in
  /// order (empty when not sampled); clock_event_reasons is the last.
  std::vector<uint64_t> clock_event_reasons_samples;
  /// MIG devices (null: MIG off, unsupported or not read).
  std::optional<std::vector<MigDevice>> mig_devices;
  PcieLink pcie;
  std::optional<uint64_t> clock_event_reasons;  ///< bit mask, see nvml_types.h
  std::optional<uint64_t> clock_event_reasons_supported;

  std::optional<std::vector<GpuProcess>> processes;  ///< null: query failed
  std::optional<std::string> processes_error;
  std::optional<int> process_record_bytes;  ///< 16, 24 or 32

  /// Per-field failures other than NOT_SUPPORTED: "nvmlDeviceGetX: error".
  std::vector<std::string> errors;

  /// Set when the checks completed this GPU's identity (bus id, name, UUID)
  /// that NVML could not say (a lost GPU): how, in words. Null when every
  /// identity field came from NVML.
  std::optional<std::string> identity_derived_from;
  bool operator==(const GpuState&) const = default;
};

/// What the NVML library load and init said, for "explain itself" output.
struct NvmlStatus {
  bool loaded = false;                         ///< dlopen succeeded
  bool initialized = false;                    ///< nvmlInit succeeded
  std::optional<std::string> library_path;     ///< what we asked dlopen for
  std::optional<std::string> library_file;     ///< real file behind it
  std::optional<std::string> library_version;  ///< from the file name
  std::optional<int> init_return_code;         ///< nvmlReturn_t of init
  std::optional<NvmlInitError> init_error;     ///< how it failed (model/nvml_init.h)
  /// NVML's name of init_return_code ("NVML_ERROR_UNKNOWN") when NVML
  /// itself returned the error (nvml_returned); null otherwise.
  std::optional<std::string> init_return_name;
  std::optional<std::string> error_message;  ///< one clear line
  std::optional<std::string> load_error;     ///< dlopen's own words, when loading failed
  std::vector<std::string> missing_symbols;  ///< optional ones not exported
  bool operator==(const NvmlStatus&) const = default;
};

/// One NVIDIA message from the kernel log (xid-catalog.md, log formats).
struct KernelLogEvent {
  EventKind kind = EventKind::kXid;
  std::optional<int> code;                  ///< the Xid / SXid number
  std::optional<std::string> pci_bus_id;    ///< canonical "0000:19:00.0"
  std::optional<uint32_t> gpu_instance_id;  ///< MIG "GPU-I:05" after the bus id
  LogBoot boot = LogBoot::kCurrent;
  std::optional<double> monotonic_s;        ///< seconds since boot, when printed
  std::optional<int64_t> time_unix_s;       ///< wall time, when printed or derivable
  std::optional<std::string> time_text;     ///< the timestamp as the log printed it
  std::optional<uint32_t> pid;              ///< "pid=1234" in the message
  std::optional<std::string> process_name;  ///< "name=python3"
  std::string detail;                       ///< the text after the code ("Graphics Exception...")
  std::string line;                         ///< the whole line (continuations joined by " | ")
  /// Fields decoded from the message (xid-catalog.md): ("engine", "GR"),
  /// ("gpc", "2"), ("link", "3"), ("subcode", "0x4")..., in printed order.
  std::vector<std::pair<std::string, std::string>> decoded;
  /// Lines folded into this one event (a storm of the same Xid on the same
  /// GPU in the same boot); the fields above are the first line's.
  uint64_t count = 1;
  std::optional<double> last_monotonic_s;  ///< the last folded line's times
  std::optional<int64_t> last_time_unix_s;
  std::optional<std::string> last_time_text;
  /// The distinct details of the folded lines (bounded; the first is
  /// `detail`), and how many more distinct ones were not kept.
  std::vector<std::string> distinct_details;
  uint64_t distinct_details_dropped = 0;
  /// A later event that cancels this one (Xid 162 cancels 163, per the
  /// catalogue): its code, so the checks can stand this one down.
  std::optional<int> cancelled_by_code;
  bool operator==(const KernelLogEvent&) const = default;
};

/// What reading the kernel log gave: events, and every source tried.
struct KernelLog {
  struct Source {
    std::string name;  ///< "/dev/kmsg", "journalctl -k -b -1", "/var/log/kern.log", a file
    LogBoot boot = LogBoot::kCurrent;
    bool read = false;                 ///< true when it was read
    std::optional<std::string> error;  ///< why not ("permission denied", ...)
    uint64_t lines = 0;                ///< lines looked at
    bool operator==(const Source&) const = default;
  };
  std::vector<Source> sources;
  std::vector<KernelLogEvent> events;
  uint64_t unparsed_nvidia_lines = 0;  ///< NVRM/nvidia lines matching no known form
  bool operator==(const KernelLog&) const = default;
};

/// Space on the filesystem holding a path (statvfs).
struct DiskUsage {
  std::string path;                  ///< as given (--path), or "/"
  std::optional<std::string> error;  ///< why it could not be read
  /// The earlier path (in the order given) on the same filesystem: the
  /// numbers are that filesystem's, so they are judged once, there.
  std::optional<std::string> same_filesystem_as;
  std::optional<uint64_t> total_bytes;
  std::optional<uint64_t> available_bytes;  ///< to unprivileged users (f_bavail)
  std::optional<uint64_t> inodes_total;     ///< null where the fs has no inode limit
  std::optional<uint64_t> inodes_available;
  bool operator==(const DiskUsage&) const = default;
};

/// A loaded NVIDIA kernel module (/sys/module/nvidia*).
struct KernelModule {
  std::string name;                  ///< "nvidia", "nvidia_uvm", "nvidia_peermem"...
  std::optional<uint32_t> refcnt;    ///< /sys/module/NAME/refcnt: users holding it
  std::vector<std::string> holders;  ///< /sys/module/NAME/holders/: modules using it
  bool operator==(const KernelModule&) const = default;
};

/// A task in uninterruptible sleep (state D) inside NVIDIA's driver: the
/// signature of a wedged driver (nvidia-smi and every NVML caller then hang).
struct StuckTask {
  uint32_t pid = 0;
  std::optional<uint32_t> tid;              ///< the stuck thread, when not the main one
  std::string comm;                         ///< /proc/PID/comm
  std::optional<std::string> wchan;         ///< /proc/PID/wchan, when readable
  std::optional<std::string> nvidia_frame;  ///< first nvidia frame of /proc/PID/stack
  std::optional<double> sleeping_s;         ///< how long in D state, when known
  bool operator==(const StuckTask&) const = default;
};

/// A known NVIDIA daemon that keeps the GPUs (and so the modules) open.
struct NvidiaService {
  std::string what;  ///< "nvidia-persistenced", "Fabric Manager", "DCGM"
  uint32_t pid = 0;
  std::string comm;                 ///< /proc/PID/comm
  std::optional<std::string> unit;  ///< its systemd unit, from /proc/PID/cgroup
  bool operator==(const NvidiaService&) const = default;
};

/// What shows Fabric Manager running beyond its process
/// (sources/procfs/fabric_manager.h): its systemd unit active, a listener on
/// its command socket. Each null: not readable here (no systemd, no
/// /proc/net); in a container a listener is seen only with the host's network.
struct FabricManagerSigns {
  /// /run/systemd/units/invocation:nvidia-fabricmanager.service is there.
  std::optional<bool> unit_active;
  /// A listener on `socket` in /proc/net/tcp (LISTEN) or /proc/net/unix.
  std::optional<bool> listening;
  /// "127.0.0.1:6666" or a unix socket path: fabricmanager.cfg's
  /// FM_CMD_BIND_INTERFACE/FM_CMD_PORT_NUMBER or FM_CMD_UNIX_SOCKET_PATH, else
  /// Fabric Manager's defaults.
  std::string socket;
  bool operator==(const FabricManagerSigns&) const = default;
};

/// Where a snapshot's GPU facts came from. Every origin is collected by the
/// one pipeline (src/collect/) and judged by the same checks; what differs is
/// only what the origin could read.
enum class Origin {
  kNvml,      ///< this node, live, through NVML
  kCapture,   ///< a saved `nvidia-smi -q -x`: /proc, /sys, the kernel log
              ///< and disks of that node were not read
  kGathered,  ///< another node over ssh: its nvidia-smi -q -x, and copies
              ///< of its /proc, /sys, kernel log and df
};

/// "nvml", "nvidia-smi-capture", "nvidia-smi-over-ssh" (the JSON "source").
const char* origin_name(Origin o);

/// The GPUs and their processes are nvidia-smi's (a capture or a gathered
/// node): a process nvidia-smi lists with no /proc entry is that node's, not
/// a hidden one of this PID namespace.
inline bool gpus_from_nvidia_smi(Origin o) { return o != Origin::kNvml; }

/// The node's PCI bus was read (live, or copied over ssh); a capture has none.
inline bool pci_bus_read(Origin o) { return o != Origin::kCapture; }

struct NodeSnapshot {
  std::string schema = "gpu-triage/snapshot";
  int schema_version = 2;  ///< 2: servers[]
  Origin source = Origin::kNvml;
  std::optional<std::string> hostname;
  /// /etc/os-release's ID and ID_LIKE (which tool pins packages); null: a
  /// capture, or no os-release.
  std::optional<std::string> os_id;
  std::optional<std::string> os_id_like;
  int64_t collected_at_unix_ms = 0;
  /// A capture's own <timestamp> as it printed it, and in Unix seconds when
  /// it could be read (its time zone is not in the file: read as UTC, see
  /// docs); the capture's file. Null for a live collection.
  std::optional<std::string> captured_at;
  std::optional<int64_t> captured_at_unix_s;
  std::optional<std::string> capture_file;
  double sample_window_s = 0;

  NvmlStatus nvml;
  std::optional<std::string> driver_version;  ///< from NVML
  std::optional<std::string> nvml_version;
  std::optional<std::string> cuda_driver_version;  ///< "13.1"
  std::optional<std::string> kernel_release;  ///< the running kernel (uname -r); null: a capture
  std::optional<std::string> kernel_module_version;  ///< /sys/module/nvidia
  /// Every nvidia-smi on the operator's PATH, the one a shell runs first
  /// (sources/procfs/nvidia_smi_binary.h); null: not looked for (a capture).
  std::optional<std::vector<NvidiaSmiBinary>> nvidia_smi;
  std::optional<uint32_t> gpu_count;  ///< NVML's count

  std::vector<GpuState> gpus;
  /// The GPU processes grouped into servers (model/server.h); null when no
  /// GPU's process list could be read.
  std::optional<std::vector<Server>> servers;
  std::vector<PciDevice> pci_devices;  ///< every NVIDIA GPU on the bus
  /// NVSwitch functions on the PCI bus (vendor 0x10de, class 0x0680), by
  /// bus id: the node needs Fabric Manager; null when the bus was not read
  /// (a capture, a gathered host).
  std::optional<std::vector<std::string>> nvswitches;
  /// The machine's NUMA nodes and their CPUs; null when not read (a capture,
  /// no /sys/devices/system/node).
  std::optional<std::vector<NumaNode>> numa_nodes;
  /// Every bridge above those GPUs, once, by bus id (their
  /// upstream_bridges name them); empty when no path is known.
  std::vector<PcieBridge> pcie_bridges;
  std::optional<KernelLog> kernel_log;  ///< null when not read (--no-kernel-log)
  std::vector<DiskUsage> disks;         ///< one per --path (and /), in the order given
  /// What runs this node: "vm" (DMI vendor/product or the cpuinfo
  /// hypervisor flag), "bare-metal", or null (not read: a capture, no DMI).
  std::optional<std::string> machine_kind;
  /// Why: "DMI: QEMU Standard PC (Q35 + ICH9, 2009); cpuinfo: hypervisor flag".
  std::optional<std::string> machine_evidence;
  /// `--data DIR`: the job's output checked inside the triage; null without.
  std::optional<DataCheck> data;
  /// The mount holding / and each --path (model/mounts.h); empty for a capture.
  std::vector<MountInfo> mounts;
  /// What of the mount table and configuration could not be read
  /// ("/etc/fstab: Permission denied"): the mount checks needing it did
  /// not run (mount.unread says so; never a clean bill).
  std::vector<std::string> mounts_unread;
  /// The record of earlier boots (--state-dir); null: --no-state, a capture,
  /// a fixture root without --state-dir, or unreadable (a warning says why).
  std::optional<GpuHistory> history;
  /// The node's fingerprint (model/fingerprint.h), taken with the record
  /// across boots; null where no record is kept (the same cases).
  std::optional<Fingerprint> fingerprint;
  /// Loaded nvidia* kernel modules, unload order (nvidia_peermem first,
  /// nvidia last); empty when none is loaded or /sys was not read.
  std::vector<KernelModule> nvidia_modules;
  std::vector<NvidiaService> nvidia_services;  ///< running NVIDIA daemons
  /// Whether nvidia_services was read (this node's /proc); false for a
  /// capture or a host gathered over ssh, where "none runs" is unknown.
  bool nvidia_services_read = false;
  /// Fabric Manager's unit and command socket; null where not read (a
  /// capture, a gathered host).
  std::optional<FabricManagerSigns> fabric_manager;
  /// Tasks stuck in D state in nvidia code; null when /proc was not scanned
  /// (a capture) or could not be read.
  std::optional<std::vector<StuckTask>> stuck_nvidia_tasks;
  /// What happened and when (model/incident.h): this boot, the previous
  /// boot and how it ended, crash records, the clock; null for a capture.
  std::optional<Incident> incident;
  /// Whether CUDA will start here (model/cuda_readiness.h): the readiness
  /// stage; null when not collected (a capture, a command without it).
  std::optional<CudaReadiness> cuda;
  /// RDMA devices, the peer-memory module and each GPU's nearest NIC
  /// (model/rdma.h); null: no /sys/class/infiniband device, or not read.
  std::optional<RdmaState> rdma;
  std::vector<std::string> warnings;  ///< collection problems, in words
  /// A bundle's replay checked against the archive's own record
  /// (model/bundle.h); null for every other origin.
  std::optional<BundleReplay> bundle_replay;
  /// `--cuda` (the probe stage, collect/collect.h): what the probe proved on
  /// each GPU, judged with the rest (checks/cuda_probe.h); null without
  /// --cuda. Only the Prometheus output shows its figures; the cuda
  /// command's own JSON has all of it.
  std::optional<CudaProbeReport> cuda_probe;
  bool operator==(const NodeSnapshot&) const = default;
};

}  // namespace gt

namespace gt {

/// nvidia-smi's names for the set bits of a clock event reasons mask
/// ("gpu_idle", "hw_slowdown", ...), lowest bit first; unknown bits as hex.
std::vector<std::string> clock_event_reason_names(uint64_t mask);

/// "00000000:19:00.0" (NVML) or "0000:19:00.0" (sysfs), any case, or
/// "19:00.0" (no domain) -> canonical lowercase "0000:19:00.0". Surrounding
/// whitespace is dropped; anything else is returned lowercased as it is.
std::string normalize_pci_bus_id(std::string_view bus_id);

/// The GPU with NVML index `index`, or nullptr.
const GpuState* gpu_by_index(const NodeSnapshot& s, uint32_t index);

/// The NUMA node of GPU `index`: its PCI device's numa_node (null: the bus
/// was not read, the GPU has no bus id, or the platform gives none).
std::optional<uint32_t> gpu_numa_node(const NodeSnapshot& s, uint32_t index);

/// Whether a GPU stayed idle over the sample window: every sample read 0%,
/// with at least kMinIdleSamples samples; nullopt when utilization was not
/// sampled over a window (--sample 0, a capture's single reading) or is
/// unknown (MIG). The one rule the report and `gpu-triage free` both use.
inline constexpr int kMinIdleSamples = 2;
std::optional<bool> idle_over_window(const GpuState& g);

}  // namespace gt

namespace gt {

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<SampleStats> auto& s, auto& v) {
  v("min", s.min);
  v("mean", s.mean);
  v("max", s.max);
  v("samples", s.samples);
}

void describe(SelfOf<ProcessOwner> auto& o, auto& v) {
  v("kind", o.kind);
  v("name", o.name);
  v("container_id", o.container_id);
  v("cgroup_path", o.cgroup_path);
}

void describe(SelfOf<GpuProcess> auto& p, auto& v) {
  v("pid", p.pid);
  v("type", p.type);
  v("used_memory_bytes", p.used_memory_bytes);
  v("gpu_instance_id", p.gpu_instance_id);
  v("compute_instance_id", p.compute_instance_id);
  v("visible", p.visible);
  v("visibility_note", p.visibility_note);
  v("name", p.name);
  v("cmdline", p.cmdline);
  v("uid", p.uid);
  v("user", p.user);
  v("ppid", p.ppid);
  v("nspid", p.nspid);
  v("cpus_allowed", p.cpus_allowed);
  v("start_time", p.start_time_unix_s, TimeView{});
  v("start_time_unix_s", p.start_time_unix_s);
  v("owner", p.owner);
}

void describe(SelfOf<PciDevice> auto& d, auto& v) {
  v("bus_id", d.bus_id);
  v("device_id", d.device_id, AsHex<4>{});
  v("class", d.class_code, AsHex<6>{});
  v("driver", d.driver);
  v.group("link", [&](auto& l) {
    l.group("speed_gts", [&](auto& s) {
      s("current", d.current_link_speed_gts);
      s("max", d.max_link_speed_gts);
    });
    l.group("gen", [&](auto& g) {
      g("current", d.current_link_gen);
      g("max", d.max_link_gen);
    });
    l.group("width", [&](auto& w) {
      w("current", d.current_link_width);
      w("max", d.max_link_width);
    });
  });
  v("numa_node", d.numa_node);
  v("model", d.model);
  v("uuid", d.uuid);
  v("aer", d.aer, NullWhenDefault{});
  v("upstream_bridges", d.upstream_bridges);
}

void describe(SelfOf<NvidiaSmiBinary> auto& b, auto& v) {
  v("path", b.path);
  v("release", b.release);
  v("container", b.container);
}

void describe(SelfOf<NumaNode> auto& n, auto& v) {
  v("id", n.id);
  v("cpus", n.cpus);
}

void describe(SelfOf<KernelLogEvent> auto& e, auto& v) {
  v("kind", e.kind);
  v("code", e.code);
  v("pci_bus_id", e.pci_bus_id);
  v("gpu_instance_id", e.gpu_instance_id);
  v("boot", e.boot);
  v("monotonic_s", e.monotonic_s);
  v("time", e.time_unix_s, AsTime{});
  v("time_text", e.time_text);
  v("pid", e.pid);
  v("process_name", e.process_name);
  v("detail", e.detail);
  v("line", e.line);
  v("decoded", e.decoded, AsObject{});
  v("count", e.count);
  v("last_monotonic_s", e.last_monotonic_s);
  v("last_time", e.last_time_unix_s, AsTime{});
  v("last_time_text", e.last_time_text);
  v("distinct_details", e.distinct_details);
  v("distinct_details_dropped", e.distinct_details_dropped);
  v("cancelled_by_code", e.cancelled_by_code);
}

void describe(SelfOf<KernelLog::Source> auto& s, auto& v) {
  v("name", s.name);
  v("boot", s.boot);
  v("read", s.read);
  v("error", s.error);
  v("lines", s.lines);
}

void describe(SelfOf<KernelLog> auto& k, auto& v) {
  v("sources", k.sources);
  v("events", k.events);
  v("unparsed_nvidia_lines", k.unparsed_nvidia_lines);
}

void describe(SelfOf<DiskUsage> auto& d, auto& v) {
  v("path", d.path);
  v("error", d.error);
  v("same_filesystem_as", d.same_filesystem_as);
  v("total_bytes", d.total_bytes);
  v("available_bytes", d.available_bytes);
  v("inodes_total", d.inodes_total);
  v("inodes_available", d.inodes_available);
}

void describe(SelfOf<KernelModule> auto& m, auto& v) {
  v("name", m.name);
  v("refcnt", m.refcnt);
  v("holders", m.holders);
}

void describe(SelfOf<StuckTask> auto& t, auto& v) {
  v("pid", t.pid);
  v("tid", t.tid);
  v("comm", t.comm);
  v("wchan", t.wchan);
  v("nvidia_frame", t.nvidia_frame);
  v("sleeping_s", t.sleeping_s);
}

void describe(SelfOf<FabricManagerSigns> auto& f, auto& v) {
  v("unit_active", f.unit_active);
  v("listening", f.listening);
  v("socket", f.socket);
}

void describe(SelfOf<NvidiaService> auto& s, auto& v) {
  v("what", s.what);
  v("pid", s.pid);
  v("comm", s.comm);
  v("unit", s.unit);
}

}  // namespace gt

namespace gt {

// The GPU's fields once, in the report's order (model/describe.h): nested
// objects with no struct of their own are groups.
void describe(SelfOf<RecoveryState> auto& r, auto& v) {
  v("action", r.action);
  v("action_code", r.action_code);
  v("action_text", r.action_text);
  v("reset_required", r.reset_required);
  v("drain_and_reset_recommended", r.drain_and_reset_recommended);
  v("flags_from_deprecated_fields", r.flags_from_deprecated_fields);
}

void describe(SelfOf<RowRemapperHistogram> auto& h, auto& v) {
  v("max", h.max);
  v("high", h.high);
  v("partial", h.partial);
  v("low", h.low);
  v("none", h.none);
}

void describe(SelfOf<FabricInfo> auto& f, auto& v) {
  v("state", f.state, WithCode{f.state_code});
  v("status", f.status);
  v("clique_id", f.clique_id);
  v("cluster_uuid", f.cluster_uuid);
  v("health_mask", f.health_mask, AsHex<8>{});
  v.group("health", [&](auto& h) {
    h("bandwidth_degraded", f.bandwidth_degraded);
    h("route_recovery_in_progress", f.route_recovery_in_progress);
    h("route_unhealthy", f.route_unhealthy);
    h("access_timeout_recovery", f.access_timeout_recovery);
    h("incorrect_configuration", f.incorrect_configuration);
    h("summary", f.health_summary, WithCode{f.health_summary_code});
  });
}

void describe(SelfOf<NvLinkCounters> auto& c, auto& v) {
  v("crc_flit", c.crc_flit);
  v("crc_data", c.crc_data);
  v("replay", c.replay);
  v("recovery", c.recovery);
}

void describe(SelfOf<NvLink> auto& l, auto& v) {
  v("link", l.link);
  v("active", l.active);
  v("version", l.version);
  v("remote_pci_bus_id", l.remote_pci_bus_id);
  v("remote_device_type", l.remote_device_type);
  v("errors", l.errors);
  v("errors_growth", l.errors_growth);
}

void describe(SelfOf<GpuPeer> auto& p, auto& v) {
  v("index", p.index);
  v("level", p.level);
  v.group("p2p", [&](auto& c) {
    c("read", p.p2p_read);
    c("write", p.p2p_write);
    c("nvlink", p.p2p_nvlink);
    c("atomics", p.p2p_atomics);
  });
}

void describe(SelfOf<LimitTime> auto& l, auto& v) {
  v.group("share_of_window", [&](auto& s) {
    s("sw_power_cap", l.sw_power_cap_share);
    s("sync_boost", l.sync_boost_share);
    s("board_limit", l.board_limit_share);
    s("low_utilization", l.low_utilization_share);
    s("reliability", l.reliability_share);
    s("sw_thermal", l.sw_thermal_share);
    s("hw_thermal", l.hw_thermal_share);
    s("hw_power_brake", l.hw_power_brake_share);
  });
  v.group("total_us", [&](auto& t) {
    t("sw_power_cap", l.sw_power_cap_total_us);
    t("sync_boost", l.sync_boost_total_us);
    t("sw_thermal", l.sw_thermal_total_us);
    t("hw_thermal", l.hw_thermal_total_us);
    t("hw_power_brake", l.hw_power_brake_total_us);
  });
}

/// process_pids is written beside each device from the parent GPU's
/// processes (GpuState's description), not held here.
void describe(SelfOf<MigDevice> auto& m, auto& v) {
  v("index", m.index);
  v("gpu_instance_id", m.gpu_instance_id);
  v("compute_instance_id", m.compute_instance_id);
  v("uuid", m.uuid);
  v("name", m.name);
  v.group("memory", [&](auto& b) {
    b("total_bytes", m.memory_total_bytes);
    b("used_bytes", m.memory_used_bytes);
    b("free_bytes", m.memory_free_bytes);
    b("reserved_bytes", m.memory_reserved_bytes);
  });
  v("multiprocessor_count", m.multiprocessor_count);
  v("volatile_sram_uncorrectable", m.volatile_sram_uncorrectable);
}

/// What the GPU is and what it reads now.
void describe_gpu_readings(SelfOf<GpuState> auto& g, auto& v) {
  v("index", g.index);
  v("status", g.status);
  v("status_detail", g.status_detail);
  v("stuck_in_call", g.stuck_in_call);
  v("name", g.name);
  v("uuid", g.uuid);
  v("serial", g.serial);
  v("vbios_version", g.vbios_version);
  v("board_part_number", g.board_part_number);
  v.group("pci", [&](auto& p) {
    p("bus_id", g.pci_bus_id);
    p("device_id", g.pci_device_id, AsHex<8>{});
  });
  v.group("memory", [&](auto& m) {
    m("total_bytes", g.memory_total_bytes);
    m("used_bytes", g.memory_used_bytes);
    m("free_bytes", g.memory_free_bytes);
    m("reserved_bytes", g.memory_reserved_bytes);
  });
  v.group("utilization", [&](auto& u) {
    u("gpu_pct", g.utilization_gpu_pct);
    u("memory_pct", g.utilization_memory_pct);
  });
  v.group("temperature", [&](auto& t) { t("gpu_c", g.temperature_c); });
  v.group("power", [&](auto& p) {
    p("draw_w", g.power_draw_w);
    p("limit_w", g.power_limit_w);
  });
  v("pstate", g.pstate, AsPstate{});
  v.group("fan", [&](auto& f) { f("speed_pct", g.fan_speed_pct); });
  v("persistence_mode", g.persistence_mode);
  v("compute_mode", g.compute_mode);
  v.group("mig", [&](auto& m) {
    m.group("mode", [&](auto& c) {
      c("current", g.mig_mode_current);
      c("pending", g.mig_mode_pending);
    });
  });
}

/// Its memory's errors, its link and its clocks.
void describe_gpu_health(SelfOf<GpuState> auto& g, auto& v) {
  v.group("ecc", [&](auto& e) {
    e.group("mode", [&](auto& m) {
      m("current", g.ecc_mode_current);
      m("pending", g.ecc_mode_pending);
    });
    e.group("errors", [&](auto& r) {
      r.group("corrected", [&](auto& c) {
        c("volatile", g.ecc.volatile_corrected);
        c("aggregate", g.ecc.aggregate_corrected);
      });
      r.group("uncorrected", [&](auto& u) {
        u("volatile", g.ecc.volatile_uncorrected);
        u("aggregate", g.ecc.aggregate_uncorrected);
      });
    });
  });
  v.group("retired_pages", [&](auto& r) {
    r("single_bit_ecc_count", g.retired_pages.single_bit);
    r("double_bit_ecc_count", g.retired_pages.double_bit);
    r("pending", g.retired_pages.pending);
  });
  v.group("remapped_rows", [&](auto& r) {
    r("correctable", g.remapped_rows.correctable);
    r("uncorrectable", g.remapped_rows.uncorrectable);
    r("pending", g.remapped_rows.pending);
    r("failure", g.remapped_rows.failure);
  });
  v.group("pcie", [&](auto& p) {
    p.group("link", [&](auto& l) {
      l.group("gen", [&](auto& n) {
        n("current", g.pcie.current_gen);
        n("max", g.pcie.max_gen);
        n("device_max", g.pcie.device_max_gen);
      });
      l.group("width", [&](auto& w) {
        w("current", g.pcie.current_width);
        w("max", g.pcie.max_width);
      });
    });
    p("replay_counter", g.pcie.replay_counter);
  });
  v.group("clocks_event_reasons", [&](auto& c) {
    c("active", g.clock_event_reasons, AsHex<16>{});
    c("supported", g.clock_event_reasons_supported, AsHex<16>{});
    c("active_names", g.clock_event_reasons, ClockReasonNames{});
  });
}

/// What the driver says of it, its fabric, links, peers and limits.
void describe_gpu_driver_signals(SelfOf<GpuState> auto& g, auto& v) {
  v("recovery", g.recovery);
  v("row_remapper_histogram", g.row_remapper_histogram);
  v("fabric", g.fabric);
  v("nvlinks", g.nvlinks);
  v("peers", g.peers);
  v.group("thermal", [&](auto& t) {
    t("gpu_c", g.temperature_c);
    t("memory_c", g.thermal.memory_temperature_c);
    t("slowdown_margin_c", g.thermal.slowdown_margin_c);
    t.group("thresholds", [&](auto& h) {
      h("shutdown_c", g.thermal.shutdown_threshold_c);
      h("slowdown_c", g.thermal.slowdown_threshold_c);
      h("gpu_max_c", g.thermal.gpu_max_threshold_c);
      h("memory_max_c", g.thermal.memory_max_threshold_c);
    });
  });
  v("limit_time", g.limit_time);
  v("clocks_event_reasons_samples", g.clock_event_reasons_samples, AsHex<16>{});
  v("mig_devices", g.mig_devices, MigProcessPids{g.processes});
}

void describe(SelfOf<GpuState> auto& g, auto& v) {
  describe_gpu_readings(g, v);
  describe_gpu_health(g, v);
  describe_gpu_driver_signals(g, v);
  v("processes", g.processes);
  v("processes_error", g.processes_error);
  v("process_record_bytes", g.process_record_bytes);
  v("errors", g.errors);
  v("identity_derived_from", g.identity_derived_from);
}

}  // namespace gt

namespace gt {

void describe(SelfOf<NvmlStatus> auto& n, auto& v) {
  v("loaded", n.loaded, NullAsDefault{});
  v("initialized", n.initialized, NullAsDefault{});
  v("library_path", n.library_path);
  v("library_file", n.library_file);
  v("library_version", n.library_version);
  v("init_return_code", n.init_return_code);
  v("init_error", n.init_error, InitErrorWord{n.init_return_name});
  v("error", n.error_message);
  v("load_error", n.load_error);
  v("missing_symbols", n.missing_symbols);
}

/// The snapshot's keys, in the report's order after its verdict, findings
/// and plan (report/json_report.cc); schema and schema_version are the
/// report's, checked before anything is read.
void describe(SelfOf<NodeSnapshot> auto& s, auto& v) {
  v("schema", s.schema, WrittenOnly{});
  v("schema_version", s.schema_version, WrittenOnly{});
  v("source", s.source);
  v("hostname", s.hostname);
  v("os_id", s.os_id);
  v("os_id_like", s.os_id_like);
  v("collected_at_unix_ms", s.collected_at_unix_ms);
  v("captured_at", s.captured_at);
  v("captured_at_unix_s", s.captured_at_unix_s);
  v("capture_file", s.capture_file);
  v("sample_window_s", s.sample_window_s);
  v("nvml", s.nvml, NvmlOf{s.source});
  v("driver_version", s.driver_version);
  v("nvml_version", s.nvml_version);
  v("cuda_driver_version", s.cuda_driver_version);
  v("kernel_module_version", s.kernel_module_version);
  v("kernel_release", s.kernel_release);
  v("nvidia_smi", s.nvidia_smi);
  v("gpu_count", s.gpu_count);
  v("gpus", s.gpus);
  v("servers", s.servers);
  v("pci_devices", s.pci_devices);
  v("nvswitches", s.nvswitches);
  v("numa_nodes", s.numa_nodes);
  v("pcie_bridges", s.pcie_bridges);
  v("kernel_log", s.kernel_log);
  v("disks", s.disks);
  v("machine_kind", s.machine_kind);
  v("machine_evidence", s.machine_evidence);
  v("data", s.data);
  v("incident", s.incident);
  v("mounts", s.mounts);
  v("mounts_unread", s.mounts_unread, OmitWhenEmpty{});
  v("cuda", s.cuda);
  v("rdma", s.rdma);
  v("history", s.history, WithFingerprint{s.fingerprint});
  v("nvidia_modules", s.nvidia_modules);
  v("nvidia_services", s.nvidia_services);
  v("nvidia_services_read", s.nvidia_services_read);
  v("fabric_manager", s.fabric_manager, OmitWhenNull{});
  v("stuck_nvidia_tasks", s.stuck_nvidia_tasks);
  v("warnings", s.warnings);
  v("replay", s.bundle_replay, OmitWhenNull{});
}

}  // namespace gt
