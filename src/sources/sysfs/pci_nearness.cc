#include "sources/sysfs/pci_nearness.h"

namespace gt {
namespace {

constexpr size_t kMaxChain = 32;

}  // namespace

std::vector<std::string> pci_chain(std::string_view sysfs_path) {
  std::vector<std::string_view> parts = pci_path_components(sysfs_path);
  if (parts.size() < 4 || parts[0] != "sys" || parts[1] != "devices" || !is_host_bridge(parts[2]))
    return {};
  if (parts.size() - 2 > kMaxChain) return {};
  std::vector<std::string> chain{std::string(parts[2])};
  for (size_t i = 3; i < parts.size(); ++i) {
    if (!is_pci_address(parts[i])) return {};
    chain.emplace_back(parts[i]);
  }
  return chain;
}

std::optional<std::string> pci_device_path(const FsRoot& root, const std::string& bus_id) {
  const std::optional<std::string> path = resolve_pci_device(root, bus_id);
  if (!path) return std::nullopt;
  std::vector<std::string> chain = pci_chain(*path);
  if (chain.size() < 2 || chain.back() != bus_id) return std::nullopt;
  return path;
}

std::optional<std::string> pci_nearness(const std::optional<std::string>& path_a,
                                        std::optional<uint32_t> numa_a,
                                        const std::optional<std::string>& path_b,
                                        std::optional<uint32_t> numa_b) {
  std::vector<std::string> a = path_a ? pci_chain(*path_a) : std::vector<std::string>{};
  std::vector<std::string> b = path_b ? pci_chain(*path_b) : std::vector<std::string>{};
  if (!a.empty() && !b.empty()) {
    // The bridges above each function (the function itself left out).
    size_t common = 0;
    while (common + 1 < a.size() && common + 1 < b.size() && a[common] == b[common]) ++common;
    // Host bridge, root port and at least one switch port in common.
    if (common >= 3) return "switch";
    if (common >= 1) return "host_bridge";
  }
  // Two NUMA nodes are the CPU interconnect whatever the paths; one NUMA
  // node says "only the node" only when the paths ruled the bridges out.
  if (numa_a && numa_b && *numa_a != *numa_b) return "system";
  if (numa_a && numa_b && !a.empty() && !b.empty()) return "numa_node";
  return std::nullopt;
}

int nearness_rank(const std::optional<std::string>& level) {
  static const char* kOrder[] = {"switch", "host_bridge", "numa_node", "system"};
  for (int i = 0; i < 4; ++i)
    if (level == kOrder[i]) return i;
  return 4;
}

}  // namespace gt
