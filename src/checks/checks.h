// The check families. Each reads the snapshot and appends findings; none
// modifies the snapshot or calls a collector.
#pragma once

#include <string_view>
#include <vector>

#include "checks/registry.h"
#include "model/finding.h"
#include "model/snapshot.h"

namespace gt {

void check_nvml(const NodeSnapshot& s, std::vector<Finding>& out);
void check_presence(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out);
void check_gpu_health(const NodeSnapshot& s, std::vector<Finding>& out);
void check_memory_holders(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out);
void check_ecc(const NodeSnapshot& s, std::vector<Finding>& out);
void check_pcie_and_clocks(const NodeSnapshot& s, std::vector<Finding>& out);
void check_kernel_log(const NodeSnapshot& s, std::vector<Finding>& out);
void check_disks(const NodeSnapshot& s, std::vector<Finding>& out);

/// A finding about one GPU, with its id's default severity.
Finding gpu_finding(const char* id, const GpuState& g);
/// A finding about the node.
Finding node_finding(const char* id);
/// The GPU NVML knows at `bus_id` (any spelling, see normalize_pci_bus_id),
/// or nullptr.
const GpuState* gpu_by_bus_id(const NodeSnapshot& s, std::string_view bus_id);
/// "GPU 3 (0000:19:00.0)".
std::string gpu_label(const GpuState& g);

}  // namespace gt
