// The node's RDMA devices (InfiniBand, RoCE) for multi-node readiness
// (issue 38 item 5; model/rdma.h). Formats from the kernel's
// Documentation/ABI/stable/sysfs-class-infiniband and drivers/infiniband/
// core/sysfs.c:
//   /sys/class/infiniband/<dev>/ports/<n>/state       "4: ACTIVE" (1 DOWN, 2 INIT, 3 ARMED)
//   .../phys_state                                    "5: LinkUp" (2 Polling, 3 Disabled)
//   .../rate        "%d%s Gb/sec (%dX%s)": "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)"
//   .../link_layer  "InfiniBand", "Ethernet" (RoCE)
//   .../gid_attrs/ndevs/0   the net device of GID 0 (RoCE only)
//   /sys/class/infiniband/<dev>/device   a link to its PCI function
//   /sys/class/infiniband/<dev>/{board_id,fw_ver}
// The PCI function's NUMA node and place on the tree are read through
// /sys/bus/pci/devices/<bdf>, as the GPUs' are (a bundle keeps the files
// read there, and the `device` link as a link).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/rdma.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Bounds against a hostile tree: devices and ports read per device.
inline constexpr size_t kMaxRdmaDevices = 128;
inline constexpr size_t kMaxRdmaPorts = 16;

/// The RDMA devices under `root`, the peer-memory module, the driver's
/// flavour and each NVIDIA GPU's (`gpus`, from the PCI bus) nearest NIC.
/// Null when /sys/class/infiniband is absent or empty (a node without
/// RDMA says nothing); a listing that fails otherwise is a warning in
/// `warnings` and null. `modules` are the nvidia* modules already read.
std::optional<RdmaState> read_rdma(const FsRoot& root, const std::vector<PciDevice>& gpus,
                                   const std::vector<KernelModule>& modules,
                                   std::vector<std::string>& warnings);

/// "4: ACTIVE" -> (4, "ACTIVE"); null for anything else.
std::optional<std::pair<uint32_t, std::string>> parse_numbered_state(const std::string& text);

/// "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5; null otherwise.
std::optional<double> parse_rate_gbps(const std::string& text);

}  // namespace gt
