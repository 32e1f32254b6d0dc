#include "sources/sysfs/rdma_devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sources/sysfs/pci_nearness.h"

namespace gt {
namespace {

constexpr const char* kClassDir = "/sys/class/infiniband";
constexpr size_t kMaxWord = 64;

/// Text of at most kMaxWord characters, each `ok`; null otherwise.
template <typename Pred>
std::optional<std::string> sysfs_word(std::optional<std::string> text, Pred ok) {
  if (!text || text->empty() || text->size() > kMaxWord) return std::nullopt;
  for (char c : *text)
    if (!ok(static_cast<unsigned char>(c))) return std::nullopt;
  return text;
}

bool rdma_printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }
bool rdma_ifname_char(unsigned char c) {
  return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '@';
}

std::optional<uint32_t> rdma_u32(std::string_view s, int base = 10) {
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// numa_node: "-1" (none) and garbage are null.
std::optional<uint32_t> read_numa(const FsRoot& root, const std::string& bus_id) {
  std::optional<std::string> t =
      root.read_optional_trimmed("/sys/bus/pci/devices/" + bus_id + "/numa_node");
  if (!t) return std::nullopt;
  std::optional<uint32_t> n = rdma_u32(*t);
  if (n && *n >= 4096) return std::nullopt;
  return n;
}

/// The PCI function behind a device: the `device` link's last component,
/// or (a fixture's plain folder) PCI_SLOT_NAME= of its uevent.
std::optional<std::string> device_bus_id(const FsRoot& root, const std::string& base) {
  if (std::optional<std::string> target = root.read_link(base + "/device")) {
    std::string last = target->substr(target->rfind('/') + 1);
    return is_pci_address(last) ? std::optional(last) : std::nullopt;
  }
  Result<std::string> uevent = root.read(base + "/device/uevent");
  if (!uevent) return std::nullopt;
  const std::string key = "PCI_SLOT_NAME=";
  size_t at = uevent->find(key);
  if (at == std::string::npos || (at > 0 && (*uevent)[at - 1] != '\n')) return std::nullopt;
  std::string v = uevent->substr(at + key.size(), 12);
  return is_pci_address(v) ? std::optional(v) : std::nullopt;
}

/// RoCE: the port's net device, whether it is configured up (IFF_UP in
/// `flags`, "0x1003") and its operstate.
void read_netdev(const FsRoot& root, const std::string& port_dir, RdmaPort& p) {
  p.netdev =
      sysfs_word(root.read_optional_trimmed(port_dir + "/gid_attrs/ndevs/0"), rdma_ifname_char);
  if (!p.netdev || p.netdev->size() > 15 || *p.netdev == "." || *p.netdev == "..") {
    p.netdev.reset();
    return;
  }
  const std::string net = "/sys/class/net/" + *p.netdev;
  std::optional<std::string> flags = root.read_optional_trimmed(net + "/flags");
  if (flags && flags->starts_with("0x"))
    if (std::optional<uint32_t> f = rdma_u32(std::string_view(*flags).substr(2), 16))
      p.netdev_admin_up = (*f & 0x1) != 0;
  p.netdev_operstate = sysfs_word(root.read_optional_trimmed(net + "/operstate"),
                                  [](unsigned char c) { return std::islower(c) != 0; });
}

RdmaPort read_port(const FsRoot& root, const std::string& dir, uint32_t n) {
  RdmaPort p;
  p.port = n;
  if (std::optional<std::string> t = root.read_optional_trimmed(dir + "/state"))
    if (auto s = parse_numbered_state(*t)) std::tie(p.state_code, p.state) = *s;
  if (std::optional<std::string> t = root.read_optional_trimmed(dir + "/phys_state"))
    if (auto s = parse_numbered_state(*t)) std::tie(p.phys_state_code, p.phys_state) = *s;
  if (std::optional<std::string> t =
          sysfs_word(root.read_optional_trimmed(dir + "/rate"), rdma_printable))
    if ((p.rate_gbps = parse_rate_gbps(*t))) p.rate = t;
  p.link_layer = sysfs_word(root.read_optional_trimmed(dir + "/link_layer"),
                            [](unsigned char c) { return std::isalpha(c) != 0; });
  if (p.link_layer == "Ethernet") read_netdev(root, dir, p);
  return p;
}

/// Port numbers in numeric order, at most kMaxRdmaPorts.
std::vector<uint32_t> port_numbers(const std::vector<std::string>& names) {
  std::vector<uint32_t> out;
  for (const std::string& n : names)
    if (std::optional<uint32_t> v = rdma_u32(n); v && *v <= 255 && n.size() <= 3) out.push_back(*v);
  std::sort(out.begin(), out.end());
  if (out.size() > kMaxRdmaPorts) out.resize(kMaxRdmaPorts);
  return out;
}

RdmaDevice read_device(const FsRoot& root, const std::string& name) {
  RdmaDevice d;
  d.name = name;
  const std::string base = std::string(kClassDir) + "/" + name;
  d.pci_bus_id = device_bus_id(root, base);
  if (d.pci_bus_id) {
    d.numa_node = read_numa(root, *d.pci_bus_id);
    d.pci_path = pci_device_path(root, *d.pci_bus_id);
  }
  d.board_id = sysfs_word(root.read_optional_trimmed(base + "/board_id"), rdma_printable);
  d.fw_ver = sysfs_word(root.read_optional_trimmed(base + "/fw_ver"), rdma_printable);
  Result<std::vector<std::string>> ports = root.list(base + "/ports");
  if (!ports) {
    d.error = ports.error().message;
    return d;
  }
  for (uint32_t n : port_numbers(*ports))
    d.ports.push_back(read_port(root, base + "/ports/" + std::to_string(n), n));
  return d;
}

/// NCCL's own test (src/transport/net_ib): nvidia_peermem's
/// /sys/module/nvidia_peermem/version, or the older nv_peer_mem's
/// /sys/kernel/mm/memory_peers/nv_mem{,_nc}/version.
std::optional<std::string> peer_memory(const FsRoot& root,
                                       const std::vector<KernelModule>& modules) {
  for (const KernelModule& m : modules)
    if (m.name == "nvidia_peermem") return m.name;
  if (root.exists("/sys/module/nvidia_peermem/version")) return "nvidia_peermem";
  for (const char* f : {"/sys/kernel/mm/memory_peers/nv_mem/version",
                        "/sys/kernel/mm/memory_peers/nv_mem_nc/version"})
    if (root.exists(f)) return "nv_peer_mem";
  return std::nullopt;
}

std::optional<bool> open_kernel_module(const FsRoot& root) {
  Result<std::string> banner = root.read("/proc/driver/nvidia/version");
  if (!banner) return std::nullopt;
  return banner->find("Open Kernel Module") != std::string::npos;
}

GpuNic nearest_nic(const FsRoot& root, const PciDevice& gpu,
                   const std::vector<RdmaDevice>& devices) {
  GpuNic g;
  g.gpu_bus_id = normalize_pci_bus_id(gpu.bus_id);
  const std::optional<std::string> path = pci_device_path(root, g.gpu_bus_id);
  int best = nearness_rank(std::nullopt);
  bool unknown = false;
  for (const RdmaDevice& d : devices) {
    if (!d.pci_bus_id) continue;
    std::optional<std::string> level = pci_nearness(path, gpu.numa_node, d.pci_path, d.numa_node);
    g.to_each.push_back({d.name, level});
    unknown = unknown || !level;
    if (nearness_rank(level) < best) {
      best = nearness_rank(level);
      g.nic = d.name;
      g.level = level;
    }
  }
  // A NIC of unknown nearness may be the nearest: only a switch, the
  // nearest there is, is known to beat it (a bundle's copy of a plain
  // folder must not make a far NIC the nearest).
  if (unknown && g.level != std::optional<std::string>("switch")) {
    g.nic.reset();
    g.level.reset();
  }
  return g;
}

}  // namespace

std::optional<std::pair<uint32_t, std::string>> parse_numbered_state(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon > 3) return std::nullopt;
  std::optional<uint32_t> n = rdma_u32(std::string_view(text).substr(0, colon));
  std::string_view name = std::string_view(text).substr(colon + 1);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (!n || name.empty() || name.size() > 32) return std::nullopt;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ' ') return std::nullopt;
  return std::pair{*n, std::string(name)};
}

std::optional<double> parse_rate_gbps(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  // from_chars reads "inf" and "1e308": no link is near 100 Tb/s.
  if (ec != std::errc() || !(v > 0) || !(v < 100000)) return std::nullopt;
  if (!std::string_view(p, end - p).starts_with(" Gb/sec")) return std::nullopt;
  return v;
}

std::optional<RdmaState> read_rdma(const FsRoot& root, const std::vector<PciDevice>& gpus,
                                   const std::vector<KernelModule>& modules,
                                   std::vector<std::string>& warnings) {
  Result<std::vector<std::string>> names = root.list(kClassDir);
  if (!names) {
    if (names.error().kind != ErrorKind::kNotFound)
      warnings.push_back("RDMA devices not read: " + names.error().message);
    return std::nullopt;
  }
  if (names->empty()) return std::nullopt;
  if (names->size() > kMaxRdmaDevices) {
    warnings.push_back("/sys/class/infiniband: " + std::to_string(names->size()) +
                       " devices, the first " + std::to_string(kMaxRdmaDevices) + " read");
    names->resize(kMaxRdmaDevices);
  }
  RdmaState s;
  for (const std::string& n : *names) s.devices.push_back(read_device(root, n));
  s.peer_memory_module = peer_memory(root, modules);
  s.open_kernel_module = open_kernel_module(root);
  for (const PciDevice& g : gpus) s.gpu_nics.push_back(nearest_nic(root, g, s.devices));
  return s;
}

}  // namespace gt
