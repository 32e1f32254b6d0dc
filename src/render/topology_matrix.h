// The GPUs (and RDMA NICs) as a group, as `nvidia-smi topo -m` shows them:
// what each pair shares on the PCI tree, NVLink, the pairs NVML says cannot
// use peer-to-peer, and each device's NUMA node and that node's CPUs. For
// `gpu-triage topo` and `--wide`. Read from the snapshot only (NVML's
// nvmlDeviceGetTopologyCommonAncestor and GetP2PStatus per pair, sysfs for
// the NICs and nodes); "?" is what is not known.
#pragma once

#include <cstddef>
#include <string>

#include "model/snapshot.h"

namespace gt {

/// The matrix with its legend, fitted to `width` columns where it can be
/// (8 GPUs and 2 NICs fit 80: the CPU lists are clipped first); "" when
/// there is nothing to show (fewer than two GPUs with peers read, and no
/// NIC).
std::string render_topology_matrix(const NodeSnapshot& s, size_t width);

/// Why there is no matrix, a line for `gpu-triage topo`.
std::string render_topology_nothing(const NodeSnapshot& s);

}  // namespace gt
