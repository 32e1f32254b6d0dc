// RDMA readiness for multi-node jobs (issue 38 item 5): the node's
// InfiniBand / RoCE devices as /sys/class/infiniband shows them, the
// peer-memory module GPUDirect RDMA needs, and each GPU's nearest NIC.
// Plain data; sources/sysfs/rdma_devices.h fills it, checks/rdma_checks.cc
// judges it. Unknown is null, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// One port: <dev>/ports/<n>/ (kernel Documentation/ABI/stable/
/// sysfs-class-infiniband). Each file is "N: NAME" ("4: ACTIVE",
/// "5: LinkUp"); rate "400 Gb/sec (4X NDR)".
struct RdmaPort {
  uint32_t port = 0;
  std::optional<uint32_t> state_code;       ///< 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER
  std::optional<std::string> state;         ///< the name as printed ("ACTIVE")
  std::optional<uint32_t> phys_state_code;  ///< 2 Polling, 3 Disabled, 5 LinkUp...
  std::optional<std::string> phys_state;    ///< "LinkUp"
  std::optional<double> rate_gbps;          ///< 400 of "400 Gb/sec (4X NDR)"
  std::optional<std::string> rate;          ///< the file as printed, trimmed
  std::optional<std::string> link_layer;    ///< "InfiniBand", "Ethernet" (RoCE)
  /// RoCE: the net device of GID 0 (gid_attrs/ndevs/0), its IFF_UP flag
  /// (/sys/class/net/<netdev>/flags) and operstate; null when not read.
  std::optional<std::string> netdev;
  std::optional<bool> netdev_admin_up;
  std::optional<std::string> netdev_operstate;
  bool operator==(const RdmaPort&) const = default;
};

/// One entry of /sys/class/infiniband.
struct RdmaDevice {
  std::string name;                       ///< "mlx5_0"
  std::optional<std::string> pci_bus_id;  ///< the PCI function behind it, "0000:17:00.0"
  /// Its place on the PCI tree as sysfs links it ("/sys/devices/pci0000:16/
  /// 0000:16:02.0/0000:17:00.0"); null: a fixture of plain folders, a
  /// bundle's copy, or a software device (rxe, siw) with no PCI function.
  std::optional<std::string> pci_path;
  std::optional<uint32_t> numa_node;  ///< sysfs numa_node; -1 (none) is null
  std::optional<std::string> board_id;
  std::optional<std::string> fw_ver;
  std::vector<RdmaPort> ports;
  std::optional<std::string> error;  ///< why its ports could not be listed
  bool operator==(const RdmaDevice&) const = default;
};

/// How close a GPU's nearest RDMA NIC is, from the two devices' PCI paths:
/// "switch" (a common bridge below the root port: one PCIe switch, NCCL's
/// PIX/PXB), "host_bridge" (the same root complex, PHB), "numa_node" (the
/// same NUMA node only), "system" (across the CPU interconnect, SYS).
struct GpuNic {
  std::string gpu_bus_id;            ///< canonical "0000:19:00.0"
  std::optional<std::string> nic;    ///< the nearest device's name; null: unknown
  std::optional<std::string> level;  ///< as above; null: no path known
  /// How near each RDMA device with a PCI function is, in devices' order
  /// (the topology matrix's NIC columns).
  struct ToNic {
    std::string nic;
    std::optional<std::string> level;
    bool operator==(const ToNic&) const = default;
  };
  std::vector<ToNic> to_each;
  bool operator==(const GpuNic&) const = default;
};

struct RdmaState {
  std::vector<RdmaDevice> devices;  ///< sorted by name
  /// The GPUDirect RDMA peer-memory module found loaded: "nvidia_peermem"
  /// (/sys/module/nvidia_peermem) or "nv_peer_mem" (the older one,
  /// /sys/kernel/mm/memory_peers/nv_mem*/version), the files NCCL tests;
  /// null: none loaded.
  std::optional<std::string> peer_memory_module;
  /// nvidia.ko is NVIDIA's open kernel module (/proc/driver/nvidia/version
  /// says "Open Kernel Module"): needed for GPUDirect RDMA over dma-buf.
  /// Null: the banner could not be read.
  std::optional<bool> open_kernel_module;
  /// Per NVIDIA GPU on the PCI bus, its nearest RDMA NIC (empty: no GPU).
  std::vector<GpuNic> gpu_nics;
  bool operator==(const RdmaState&) const = default;
};

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<RdmaPort> auto& p, auto& v) {
  v("port", p.port);
  v("state_code", p.state_code);
  v("state", p.state);
  v("phys_state_code", p.phys_state_code);
  v("phys_state", p.phys_state);
  v("rate_gbps", p.rate_gbps);
  v("rate", p.rate);
  v("link_layer", p.link_layer);
  v("netdev", p.netdev);
  v("netdev_admin_up", p.netdev_admin_up);
  v("netdev_operstate", p.netdev_operstate);
}

void describe(SelfOf<RdmaDevice> auto& d, auto& v) {
  v("name", d.name);
  v("pci_bus_id", d.pci_bus_id);
  v("pci_path", d.pci_path);
  v("numa_node", d.numa_node);
  v("board_id", d.board_id);
  v("fw_ver", d.fw_ver);
  v("ports", d.ports);
  v("error", d.error);
}

void describe(SelfOf<GpuNic::ToNic> auto& t, auto& v) {
  v("nic", t.nic);
  v("level", t.level);
}

void describe(SelfOf<GpuNic> auto& g, auto& v) {
  v("gpu_pci_bus_id", g.gpu_bus_id);
  v("nic", g.nic);
  v("level", g.level);
  v("to_each", g.to_each);
}

void describe(SelfOf<RdmaState> auto& r, auto& v) {
  v("devices", r.devices);
  v("peer_memory_module", r.peer_memory_module);
  v("open_kernel_module", r.open_kernel_module);
  v("gpu_nics", r.gpu_nics);
}

}  // namespace gt
