// The machine's NUMA nodes: /sys/devices/system/node/nodeN/cpulist, the
// CPUs of node N in the kernel's list format ("0-31,64-95"; an empty line
// for a node with memory and no CPUs: CXL, HBM). A GPU's node is its PCI
// device's numa_node (pci_devices.h); a process's CPUs are its status's
// Cpus_allowed_list (procfs/process_info.h). In a container the files are
// the host's (sysfs is not namespaced), as the CPU ids of its processes are.
#pragma once

#include <optional>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Every nodeN entry (N decimal) with its cpulist, by id; a cpulist that
/// cannot be read or parsed is null. nullopt when the directory does not
/// exist or cannot be listed (a kernel without NUMA support has node0).
std::optional<std::vector<NumaNode>> read_numa_nodes(const FsRoot& root);

}  // namespace gt
