// How near two PCI functions are, from their places on the PCI tree as
// sysfs links them: /sys/bus/pci/devices/BDF is a link to
// /sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:01.0/BDF, the
// host bridge (pciDDDD:BB), the root port, then each bridge down to the
// function. Two functions below one bridge under the root port share a
// PCIe switch (NCCL's PIX/PXB: GPUDirect RDMA is used there by default);
// below one host bridge only, the root complex (PHB); else the CPUs' NUMA
// nodes tell the rest (NODE, SYS). A tree of plain folders (a fixture, a
// bundle's copy) has no such path: unknown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sources/sysfs/pci_path.h"
#include "util/fs_root.h"

namespace gt {

/// The chain of a sysfs device path, from its host bridge down to the
/// function: "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0" ->
/// {"pci0000:16", "0000:16:02.0", "0000:17:00.0"}. Empty when the path is
/// not below /sys/devices/pciDDDD:BB/ with PCI addresses after it (a VM's
/// VMBus path, a plain folder), or longer than 32 steps.
std::vector<std::string> pci_chain(std::string_view sysfs_path);

/// Where /sys/bus/pci/devices/<bus_id> leads inside `root`, when that is a
/// PCI chain ending in the function itself; null otherwise.
std::optional<std::string> pci_device_path(const FsRoot& root, const std::string& bus_id);

/// "switch", "host_bridge", "numa_node" or "system" for two functions (see
/// model/rdma.h GpuNic). Two different NUMA nodes are "system" even
/// without paths; one NUMA node is "numa_node" only when both paths are
/// known and share no host bridge; null otherwise (a tree of plain folders
/// on one node cannot tell a switch from the CPU).
std::optional<std::string> pci_nearness(const std::optional<std::string>& path_a,
                                        std::optional<uint32_t> numa_a,
                                        const std::optional<std::string>& path_b,
                                        std::optional<uint32_t> numa_b);

/// The rank of a level, nearest first (unknown last), to pick the nearest.
int nearness_rank(const std::optional<std::string>& level);

}  // namespace gt
