// RDMA readiness for multi-node jobs (issue 38 item 5; docs/checks.md
// "RDMA readiness"). Only what a node has is judged: no RDMA device, no
// finding. A port is judged when it is meant to carry traffic: an
// InfiniBand port not administratively disabled, or a RoCE (Ethernet) port
// whose net device is configured up; a RoCE port of a net device nobody
// brought up (a spare, a management port) is the node's design. Devices
// with no PCI function (rxe, siw: RDMA in software over any NIC) are not
// hardware GPUDirect RDMA can use and are left alone.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/checks.h"
#include "util/shell_word.h"

namespace gt {
namespace {

constexpr uint32_t kActive = 4;
constexpr uint32_t kActiveDefer = 5;
constexpr uint32_t kPhysDisabled = 3;
constexpr uint32_t kPhysLinkUp = 5;

bool port_active(const RdmaPort& p) {
  return p.state_code == kActive || p.state_code == kActiveDefer;
}

/// Meant to carry traffic (see the top of the file).
bool port_judged(const RdmaPort& p) {
  if (p.link_layer == "InfiniBand") return p.phys_state_code != kPhysDisabled;
  if (p.link_layer == "Ethernet") return p.netdev_admin_up == true;
  return false;
}

std::string port_name(const RdmaDevice& d, const RdmaPort& p) {
  return fmt::format("{} port {}", d.name, p.port);
}

std::string port_words(const RdmaDevice& d, const RdmaPort& p) {
  std::string w = fmt::format("{} ({}) is {}", port_name(d, p), *p.link_layer,
                              p.state.value_or("in an unknown state"));
  if (p.phys_state) w += fmt::format(", physical state {}", *p.phys_state);
  if (p.netdev) w += fmt::format(", net device {} {}", *p.netdev, p.netdev_operstate.value_or("?"));
  return w;
}

/// Why, from the physical state: no link partner, or a link the subnet
/// manager has not brought up.
std::string port_cause(const RdmaPort& p) {
  if (p.link_layer == "Ethernet")
    return "the net device is configured up but its RDMA port is not active: check the "
           "cable, the transceiver and the switch port";
  if (p.phys_state_code == kPhysLinkUp)
    return "the link is up but the subnet manager has not activated the port (is the "
           "fabric's SM running and does it see this port?)";
  return "no link: check the cable, the transceiver and the switch port";
}

void port_down(const NodeSnapshot& s, std::vector<Finding>& out) {
  std::vector<std::string> names, lines, commands;
  std::set<std::string> causes;
  for (const RdmaDevice& d : s.rdma->devices) {
    if (!d.pci_bus_id) continue;
    for (const RdmaPort& p : d.ports) {
      if (!port_judged(p) || !p.state_code || port_active(p)) continue;
      names.push_back(port_name(d, p));
      lines.push_back(port_words(d, p));
      causes.insert(port_cause(p));
      commands.push_back(p.netdev ? fmt::format("ip link show {}", *p.netdev)
                                  : fmt::format("ibstat {} {}", d.name, p.port));
    }
  }
  if (names.empty()) return;
  Finding f = node_finding("rdma.port_down");
  f.title = fmt::format("RDMA {} not active: {}", names.size() == 1 ? "port" : "ports",
                        fmt::join(names, ", "));
  f.evidence = fmt::format(
      "/sys/class/infiniband: {}; multi-node jobs lose that rail (NCCL fails over to the "
      "other ports, or fails where it was told to use this one)",
      fmt::join(lines, "; "));
  f.action = fmt::format("{}. A port that is unused by design can be disabled to say so",
                         fmt::join(causes, "; "));
  f.commands = commands;
  out.push_back(f);
}

/// Active ports by what should run at one rate: the same link layer on
/// the same board (board_id); ports whose board is unknown are not compared.
void rate_mismatch(const NodeSnapshot& s, std::vector<Finding>& out) {
  std::map<std::pair<std::string, std::string>,
           std::vector<std::pair<std::string, const RdmaPort*>>>
      groups;
  for (const RdmaDevice& d : s.rdma->devices)
    for (const RdmaPort& p : d.ports)
      if (d.pci_bus_id && d.board_id && p.link_layer && port_active(p) && p.rate_gbps)
        groups[{*p.link_layer, *d.board_id}].push_back({port_name(d, p), &p});
  for (const auto& [key, ports] : groups) {
    double top = 0;
    for (const auto& [name, p] : ports) top = std::max(top, *p->rate_gbps);
    std::vector<std::string> slow, lines;
    std::string top_rate;
    for (const auto& [name, p] : ports) {
      if (*p->rate_gbps == top) top_rate = *p->rate;
      if (*p->rate_gbps >= top) continue;
      slow.push_back(name);
      lines.push_back(fmt::format("{} at {}", name, *p->rate));
    }
    if (slow.empty()) continue;
    Finding f = node_finding("rdma.rate_mismatch");
    f.title = fmt::format("RDMA {} below the rate of {} siblings: {}",
                          slow.size() == 1 ? "port runs" : "ports run", key.second,
                          fmt::join(slow, ", "));
    f.evidence = fmt::format(
        "{}; {} other active {} ports of board {} run at {}; a collective's ring runs at "
        "its slowest rail",
        fmt::join(lines, "; "), ports.size() - slow.size(), key.first, key.second, top_rate);
    f.action =
        "the link trained at a lower speed or width: check the cable and transceiver "
        "(reseat, or swap with a good one) and the switch port's configuration";
    for (const std::string& n : slow)
      f.commands.push_back("ibstat " + shell_word(n.substr(0, n.find(' '))));
    out.push_back(f);
  }
}

/// "6.8.0-51-generic" >= 5.12 (the kernel's RDMA dma-buf import, NCCL's
/// alternative to a peer-memory module); null when it does not parse.
std::optional<bool> kernel_has_rdma_dmabuf(const std::optional<std::string>& release) {
  if (!release) return std::nullopt;
  unsigned major = 0, minor = 0;
  if (std::sscanf(release->c_str(), "%u.%u", &major, &minor) != 2) return std::nullopt;
  return major > 5 || (major == 5 && minor >= 12);
}

std::vector<std::string> active_devices(const RdmaState& r) {
  std::vector<std::string> out;
  for (const RdmaDevice& d : r.devices)
    if (d.pci_bus_id && std::any_of(d.ports.begin(), d.ports.end(), port_active))
      out.push_back(d.name);
  return out;
}

/// The GPUs sharing a PCIe switch with an RDMA NIC, for the evidence
/// (unknown on a tree of plain folders or a bundle's copy).
std::string near_gpus_words(const RdmaState& r) {
  size_t near = 0, known = 0;
  for (const GpuNic& g : r.gpu_nics) {
    known += g.level.has_value();
    near += g.level == std::optional<std::string>("switch");
  }
  if (known == 0) return "which GPUs share a PCIe switch with a NIC is not known here";
  const std::string unknown = known < r.gpu_nics.size()
                                  ? fmt::format(" ({} more not known)", r.gpu_nics.size() - known)
                                  : "";
  return fmt::format(
      "{} of {} GPUs{} share a PCIe switch with an RDMA NIC, where NCCL uses GPUDirect RDMA by "
      "default (NCCL_NET_GDR_LEVEL PXB)",
      near, known, unknown);
}

void peermem_missing(const NodeSnapshot& s, std::vector<Finding>& out) {
  const RdmaState& r = *s.rdma;
  if (r.peer_memory_module || (s.pci_devices.empty() && s.gpus.empty())) return;
  std::vector<std::string> devices = active_devices(r);
  if (devices.empty()) return;
  Finding f = node_finding("rdma.peermem_missing");
  const std::optional<bool> dmabuf_kernel = kernel_has_rdma_dmabuf(s.kernel_release);
  const std::string kernel = s.kernel_release.value_or("unknown");
  const std::string flavour =
      r.open_kernel_module ? (*r.open_kernel_module ? "open" : "proprietary") : "unknown";
  f.title =
      fmt::format("No GPUDirect RDMA peer-memory module (nvidia_peermem) with {} RDMA {} active",
                  devices.size(), devices.size() == 1 ? "device" : "devices");
  f.evidence = fmt::format(
      "RDMA devices with an active port: {}; neither /sys/module/nvidia_peermem nor "
      "/sys/kernel/mm/memory_peers/nv_mem*/version (what NCCL tests); {}. ",
      fmt::join(devices, ", "), near_gpus_words(r));
  if (dmabuf_kernel == false || r.open_kernel_module == false) {
    // dma-buf cannot stand in: GPUDirect RDMA is known off.
    f.evidence += fmt::format(
        "dma-buf, the alternative, needs a 5.12+ kernel (here {}) and NVIDIA's open kernel "
        "module (here {}): NCCL's GPUDirect RDMA is off and inter-node traffic is staged "
        "through host memory (lower bandwidth, more CPU)",
        kernel, flavour);
  } else {
    f.severity = Severity::kInfo;
    f.evidence += fmt::format(
        "Kernel {}, {} kernel module: recent NCCL can register GPU memory through dma-buf "
        "instead (a 5.12+ kernel, NVIDIA's open module, and a NIC driver and rdma-core that "
        "support it); whether it does here is not known (NCCL_DEBUG=INFO names DMA-BUF and "
        "says whether GPU Direct RDMA is enabled). Without either, inter-node traffic is "
        "staged through host memory",
        kernel, flavour);
  }
  f.action =
      "load nvidia-peermem (it ships with the driver) and have it load at boot, then restart "
      "the multi-node jobs";
  f.commands = {"sudo modprobe nvidia-peermem",
                "echo nvidia-peermem | sudo tee /etc/modules-load.d/nvidia-peermem.conf"};
  out.push_back(f);
}

}  // namespace

void check_rdma(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.rdma) return;
  port_down(s, out);
  rate_mismatch(s, out);
  peermem_missing(s, out);
}

}  // namespace gt
