// The check families. Each reads the snapshot and appends findings; none
// modifies the snapshot or calls a collector.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "checks/registry.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

/// Retired pages (single- plus double-bit) at which NVIDIA's guidance calls
/// for an RMA; the hardware check says it, the ECC-history check defers to it.
inline constexpr uint32_t kRetiredPagesRmaLimit = 60;

void check_nvml(const NodeSnapshot& s, std::vector<Finding>& out);
void check_presence(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out);
void check_gpu_health(const NodeSnapshot& s, std::vector<Finding>& out);
void check_memory_holders(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out);
void check_ecc(const NodeSnapshot& s, std::vector<Finding>& out);
void check_pcie_and_persistence(const NodeSnapshot& s, std::vector<Finding>& out);
/// pcie.aer_*: the kernel's AER counters of each GPU and the bridges above
/// it (checks/pcie_aer_checks.cc).
void check_pcie_aer(const NodeSnapshot& s, std::vector<Finding>& out);
void check_recovery_action(const NodeSnapshot& s, std::vector<Finding>& out);
void check_ecc_history(const NodeSnapshot& s, std::vector<Finding>& out);
void check_fabric_and_nvlink(const NodeSnapshot& s, std::vector<Finding>& out);
void check_thermal_and_limits(const NodeSnapshot& s, std::vector<Finding>& out);
void check_kernel_log(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out);
void check_disks(const NodeSnapshot& s, std::vector<Finding>& out);
void check_data(const NodeSnapshot& s, std::vector<Finding>& out);
/// incident.* (how the previous boot ended, storage errors before it) and
/// clock.* (unsynchronised, RTC drift, files dated in the future).
void check_incident(const NodeSnapshot& s, std::vector<Finding>& out);
/// mount.*: a configured mount missing, read-only after errors, a data path
/// on a network or overlay filesystem (model/mounts.h).
void check_mounts(const NodeSnapshot& s, std::vector<Finding>& out);
/// Whether CUDA will start (model/cuda_readiness.h): the libraries a job
/// loads (cuda_library_checks.cc), and device nodes, runtime builds and NCCL's
/// limits (cuda_node.cc).
void check_cuda_libraries(const NodeSnapshot& s, std::vector<Finding>& out);
void check_cuda_node(const NodeSnapshot& s, std::vector<Finding>& out);
/// Each TP/PP server's GPUs as a group: peer-to-peer and NUMA (topology_checks.cc).
void check_server_topology(const NodeSnapshot& s, std::vector<Finding>& out);
/// topology.rank_far_numa: a server's process that may only run on CPUs
/// away from its GPU's NUMA node (rank_placement.cc).
void check_rank_placement(const NodeSnapshot& s, std::vector<Finding>& out);
/// RDMA readiness (checks/rdma_checks.cc): ports down, rates apart, no
/// GPUDirect RDMA peer-memory module.
void check_rdma(const NodeSnapshot& s, std::vector<Finding>& out);
/// gpu.repeat_offender from the record across boots and this run's findings
/// so far (`out`); runs after the joins.
void check_history(const NodeSnapshot& s, std::vector<Finding>& out);
/// change.*: this run's fingerprint against the record's last run of a
/// previous boot, else this boot's first (checks/change_checks.cc).
void check_changes(const NodeSnapshot& s, std::vector<Finding>& out);
/// The "what happened" timeline gets what changed (checks/change_timeline.cc):
/// the run compared with, the container's creation, each change when first
/// seen. Kept while the boot lasts, whatever the notes said once.
void add_change_timeline(NodeSnapshot& s);
/// driver.wedged from the tasks stuck in nvidia code; then folds the NVML
/// timeouts into it (join_driver_wedged), so it runs after join_gpu_events.
void check_driver_wedged(const NodeSnapshot& s, std::vector<Finding>& out);
/// gpu.stuck: busy with no process, no memory and idle power (gpu_stuck.cc).
void check_gpu_stuck(const NodeSnapshot& s, std::vector<Finding>& out);
/// driver.libraries_replaced: processes on driver files deleted on disk
/// (libraries_replaced.cc).
void check_libraries_replaced(const NodeSnapshot& s, std::vector<Finding>& out);
/// driver.nvidia_smi_other_release: nvidia-smi's header explained
/// (nvidia_smi_check.cc).
void check_nvidia_smi(const NodeSnapshot& s, std::vector<Finding>& out);
/// bundle.unverified: a replayed bundle whose members differ from its
/// manifest.json (bundle_checks.cc).
void check_bundle_replay(const NodeSnapshot& s, std::vector<Finding>& out);

/// A judged replay compared with its bundle's recorded report: the replayed
/// verdict and the findings only one of them has in bundle_replay, and one
/// line in warnings when they differ. Nothing for another origin.
void compare_with_record(Report& report);

/// Completes the identity (bus id, name, UUID) of the one GPU NVML could not
/// name, when the PCI bus or the kernel log say it unambiguously; sets its
/// identity_derived_from. The one check step that writes to the snapshot.
void complete_gpu_identities(NodeSnapshot& s);
/// Joins findings about the same GPU dying (lost, unresponsive, missing from
/// NVML, Xid 79, fallen off the bus) by bus id into one finding each.
void join_gpu_events(std::vector<Finding>& findings);
/// Folds gpu.unresponsive and nvml.unresponsive (an NVML call that timed out:
/// the same wedge seen from our side) into the driver.wedged finding, which
/// leads; nothing when there is none.
void join_driver_wedged(std::vector<Finding>& findings);
/// Joins each GPU's Xid 154 ("recovery action changed") into its
/// gpu.recovery_action finding, by bus id.
void join_recovery_events(std::vector<Finding>& findings);
/// Every finding's commands without sudo (running as root).
void drop_sudo(std::vector<Finding>& findings);

/// A finding about one GPU, with its id's default severity.
Finding gpu_finding(const char* id, const GpuState& g);
/// A finding about the node.
Finding node_finding(const char* id);
/// "590.48.01" > "565.57.01", numerically part by part.
bool newer(const std::string& a, const std::string& b);
/// The command that pins the driver packages on the node's distribution
/// (or the words for it), appended to `f`.
void add_pin_advice(const NodeSnapshot& s, Finding& f);
/// A finding about a path of this node (a mount, a data directory).
Finding path_finding(const char* id, const std::string& path);
/// The GPU NVML knows at `bus_id` (any spelling, see normalize_pci_bus_id),
/// or nullptr.
const GpuState* gpu_by_bus_id(const NodeSnapshot& s, std::string_view bus_id);
/// "GPU 3 (0000:19:00.0)".
std::string gpu_label(const GpuState& g);

}  // namespace gt
