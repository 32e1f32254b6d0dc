// One collect pipeline. Every origin (this node through NVML, an nvidia-smi
// capture, a node gathered over ssh) fills one snapshot here from a table of
// collectors, in one order, limited to the stages the command asks for
// (ninja's tools declare what they need the same way). Collecting never
// judges and never writes: recording history is the triage command's own
// step after judging.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/check_options.h"
#include "model/report.h"
#include "util/fs_root.h"
#include "util/read_log.h"

namespace gt {

/// What a command collects. A table's collectors run in their order, which
/// is the dependency order (servers after the GPUs' processes, the incident
/// after the servers, mounts after the disks).
enum class Stage : uint32_t {
  kGpus = 1u << 0,       ///< NVML live, or nvidia-smi's answer (capture, gathered)
  kHost = 1u << 1,       ///< hostname, module, release, services, PCI bus, stuck tasks
  kServers = 1u << 2,    ///< the GPUs' processes grouped into servers
  kKernelLog = 1u << 3,  ///< the NVIDIA lines of the kernel log
  kDisks = 1u << 4,      ///< the --path filesystems
  kData = 1u << 5,       ///< --data DIR
  kIncident = 1u << 6,   ///< what happened: boots, journal, crash records, clock
  kMounts = 1u << 7,     ///< mount sanity of the paths
  kHistory = 1u << 8,    ///< the record across boots, read only
  kReadiness = 1u << 9,  ///< whether CUDA will start: libraries, device nodes, limits
  /// Whether each GPU runs work: the CUDA probe (triage --cuda), on demand
  /// only, never in kAllStages; before judging, once.
  kCudaProbe = 1u << 10,
};
using Stages = uint32_t;
constexpr Stages operator|(Stage a, Stage b) {
  return static_cast<Stages>(a) | static_cast<Stages>(b);
}
constexpr Stages operator|(Stages a, Stage b) { return a | static_cast<Stages>(b); }
constexpr bool has(Stages s, Stage x) { return (s & static_cast<Stages>(x)) != 0; }
/// `s` less stage `x` (--no-kernel-log takes the kernel log out).
constexpr Stages without(Stages s, Stage x) { return s & ~static_cast<Stages>(x); }
constexpr Stages kAllStages = 0x3ff;  ///< every stage but the CUDA probe

/// One collector of an origin's table.
struct Collector {
  Stage stage;
  std::function<void(NodeSnapshot&)> fill;
};

/// Runs the collectors of `table` whose stage is in `stages`, in order.
void run_collectors(const std::vector<Collector>& table, Stages stages, NodeSnapshot& snap);

/// The collection options of every command that reads this node.
struct CollectInputs {
  std::string root = "/";  ///< FsRoot of every /proc, /sys, /etc read
  std::string nvml_lib;    ///< the NVML library to dlopen
  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds sample_window{1000};
  std::vector<std::string> paths = {"/"};  ///< filesystems for the disk and mount stages
  std::optional<std::string> kernel_log_file;
  std::optional<std::string> data_dir;
  std::optional<int64_t> data_expect;
  bool data_deep = false;
  std::optional<std::string> state_dir;
  bool no_state = false;
  std::optional<std::string> python;  ///< --python PATH (readiness of a job not running yet)
  /// When set, every file the collectors read is logged here (bundle).
  std::shared_ptr<ReadLog> read_log;
};

struct Collected {
  Report report;  ///< snapshot filled, not judged
  /// NVML threads left stuck inside a call past the deadline: the process
  /// must leave with _exit() (docs/design.md, "Never hang").
  bool abandoned_threads = false;
};

/// This node: the NVML collection under its deadline, then the file reads.
Collected collect_node(const CollectInputs& in, Stages stages);

/// A saved `nvidia-smi -q -x` (FILE or "-"): nothing of this machine is read;
/// a capture has the GPUs and their processes' servers of `stages`. An
/// unreadable capture leaves nvml.loaded false with the reason in
/// nvml.error_message and warnings.
Collected collect_capture(const std::string& file, Stages stages);

/// A bundle's recorded node (gpu-triage --bundle FILE): the GPUs as NVML
/// answered when it was recorded (`recorded`'s nvml and gpus, its time),
/// the record across boots and the fingerprint as it read them, its disks'
/// free space and its host name as its report recorded them (a path asked
/// for now that the record lacks is unread, never this machine's), everything
/// else read by this node's own collectors from `in.root`, the bundle's
/// root/ tree. Nothing of this machine is read, no NVML loaded; the caller
/// never records the run (the record named is the recorded node's).
Collected collect_recorded(const NodeSnapshot& recorded, const CollectInputs& in, Stages stages);

/// A watch tick's node (this node, the quick stages of `stages`): the GPUs
/// from the caller's collector (watch's own, which never asks a stuck GPU
/// again), its servers, host facts and CUDA readiness read from `root`, and
/// the kernel log the watch follows. Collected, not judged; the incident,
/// disks, mounts and the record across boots are the triage's, not a tick's.
Report collect_tick(const FsRoot& root, const std::function<void(NodeSnapshot&)>& gpus,
                    const KernelLog& kernel_log, Stages stages);

/// The host stage of a live node (this one, or a watch tick's): hostname,
/// os-release, the module and kernel release, NVIDIA modules and services,
/// the PCI bus and what runs the node (VM or bare metal).
void read_host_facts(const FsRoot& root, NodeSnapshot& snap);

/// The check options of a run, the one place every path (this node, a
/// capture, each fleet host, each watch tick) takes them from. Commands drop
/// "sudo" only for a live collection as root.
CheckOptions make_check_options(std::optional<uint32_t> expect_gpus, Origin origin);

/// Another origin's table (collect/gathered.cc builds a fleet host's from
/// its gather answer): stamps the snapshot, sets its origin and runs the
/// table. Called in collect/ only: no other layer assembles a snapshot
/// (tests/e2e/layering.sh).
Report collect_with(Origin origin, const std::vector<Collector>& table, Stages stages);

}  // namespace gt
