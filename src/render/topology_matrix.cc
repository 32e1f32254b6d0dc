#include "render/topology_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "util/terminal_text.h"

namespace gt {
namespace {

/// NVML's common ancestor as nvidia-smi abbreviates it.
std::string level_cell(const std::optional<std::string>& level) {
  if (!level) return "?";
  if (*level == "internal") return "INT";
  if (*level == "single") return "PIX";
  if (*level == "multiple") return "PXB";
  if (*level == "hostbridge") return "PHB";
  if (*level == "node") return "NODE";
  if (*level == "system") return "SYS";
  return "?";
}

/// A GPU and a NIC, from the sysfs paths (model/rdma.h GpuNic).
std::string nic_cell(const std::optional<std::string>& level) {
  if (!level) return "?";
  if (*level == "switch") return "SW";
  if (*level == "host_bridge") return "PHB";
  if (*level == "numa_node") return "NODE";
  if (*level == "system") return "SYS";
  return "?";
}

const GpuPeer* peer(const GpuState& g, uint32_t to) {
  if (!g.peers) return nullptr;
  for (const GpuPeer& p : *g.peers)
    if (p.index == to) return &p;
  return nullptr;
}

bool p2p_refused(const GpuPeer* p) {
  return p && ((p->p2p_read && *p->p2p_read != "ok") || (p->p2p_write && *p->p2p_write != "ok"));
}

std::string gpu_pair_cell(const GpuState& a, const GpuState& b) {
  if (a.index == b.index) return "X";
  const GpuPeer* ab = peer(a, b.index);
  const GpuPeer* ba = peer(b, a.index);
  const bool nvlink = (ab && ab->p2p_nvlink == std::optional<std::string>("ok")) ||
                      (ba && ba->p2p_nvlink == std::optional<std::string>("ok"));
  std::string cell = nvlink ? "NV"
                            : level_cell(ab && ab->level ? ab->level
                                         : ba            ? ba->level
                                                         : std::nullopt);
  if (p2p_refused(ab) || p2p_refused(ba)) cell += "*";
  return cell;
}

std::vector<const RdmaDevice*> nics_of(const NodeSnapshot& s) {
  std::vector<const RdmaDevice*> out;
  if (s.rdma)
    for (const RdmaDevice& d : s.rdma->devices)
      if (d.pci_bus_id) out.push_back(&d);
  return out;
}

std::optional<std::string> gpu_to_nic(const NodeSnapshot& s, const GpuState& g,
                                      const std::string& nic) {
  if (!s.rdma || !g.pci_bus_id) return std::nullopt;
  const std::string bus = normalize_pci_bus_id(*g.pci_bus_id);
  for (const GpuNic& n : s.rdma->gpu_nics)
    if (n.gpu_bus_id == bus)
      for (const GpuNic::ToNic& t : n.to_each)
        if (t.nic == nic) return t.level;
  return std::nullopt;
}

std::string node_cpus(const NodeSnapshot& s, std::optional<uint32_t> node) {
  if (!node || !s.numa_nodes) return "?";
  for (const NumaNode& n : *s.numa_nodes)
    if (n.id == *node) return n.cpus ? format_cpu_list(*n.cpus) : "?";
  return "?";
}

std::string numa_cell(std::optional<uint32_t> node) { return node ? std::to_string(*node) : "?"; }

/// A CPU list cut to `room` columns at a comma (never inside a number),
/// "~" marking the cut.
std::string fit(const std::string& text, size_t room) {
  if (text.size() <= room) return text;
  const size_t comma = room >= 2 ? text.rfind(',', room - 2) : std::string::npos;
  if (comma == std::string::npos) return "~";
  return text.substr(0, comma + 1) + "~";
}

struct Row {
  std::string label;
  std::vector<std::string> cells;
  std::string numa;
  std::string cpus;
};

/// Two GPUs whose pairs or NUMA nodes are known, or a GPU and a NIC.
bool worth_showing(const NodeSnapshot& s, size_t nics) {
  const auto known = std::count_if(s.gpus.begin(), s.gpus.end(), [&](const GpuState& g) {
    return (g.peers && !g.peers->empty()) || gpu_numa_node(s, g.index);
  });
  return known >= 2 || (nics > 0 && !s.gpus.empty());
}

}  // namespace

std::string render_topology_matrix(const NodeSnapshot& s, size_t width) {
  const std::vector<const RdmaDevice*> nics = nics_of(s);
  if (!worth_showing(s, nics.size())) return "";
  std::vector<std::string> heads;
  for (const GpuState& g : s.gpus) heads.push_back(fmt::format("GPU{}", g.index));
  for (size_t k = 0; k < nics.size(); ++k) heads.push_back(fmt::format("NIC{}", k));
  size_t cell_w = 4;
  for (const std::string& h : heads) cell_w = std::max(cell_w, h.size());
  std::vector<Row> rows;
  for (const GpuState& g : s.gpus) {
    Row r{fmt::format("GPU{}", g.index), {}, "", ""};
    for (const GpuState& o : s.gpus) r.cells.push_back(gpu_pair_cell(g, o));
    for (const RdmaDevice* d : nics) r.cells.push_back(nic_cell(gpu_to_nic(s, g, d->name)));
    const std::optional<uint32_t> node = gpu_numa_node(s, g.index);
    r.numa = numa_cell(node);
    r.cpus = node_cpus(s, node);
    rows.push_back(std::move(r));
  }
  for (size_t k = 0; k < nics.size(); ++k) {
    Row r{fmt::format("NIC{}", k),
          {},
          numa_cell(nics[k]->numa_node),
          node_cpus(s, nics[k]->numa_node)};
    for (const GpuState& g : s.gpus) r.cells.push_back(nic_cell(gpu_to_nic(s, g, nics[k]->name)));
    for (size_t j = 0; j < nics.size(); ++j) r.cells.push_back(j == k ? "X" : "-");
    rows.push_back(std::move(r));
  }
  const size_t label_w = 2 + cell_w;
  const size_t fixed = label_w + heads.size() * (cell_w + 1) + 5;  // " NUMA"
  const size_t cpu_room = width > fixed + 2 ? width - fixed - 2 : 4;
  std::string out = "topology (NVML per GPU pair; NICs and NUMA nodes from sysfs)\n";
  out += fmt::format("{:<{}}", "", label_w);
  for (const std::string& h : heads) out += fmt::format(" {:>{}}", h, cell_w);
  out += " NUMA  CPUs\n";
  for (const Row& r : rows) {
    out += fmt::format("  {:<{}}", r.label, cell_w);
    for (const std::string& c : r.cells) out += fmt::format(" {:>{}}", c, cell_w);
    out += fmt::format(" {:>4}  {}\n", r.numa, fit(r.cpus, cpu_room));
  }
  for (size_t k = 0; k < nics.size(); ++k)
    out += fmt::format("  NIC{}: {} ({})\n", k, for_terminal(nics[k]->name),
                       for_terminal(*nics[k]->pci_bus_id));
  out +=
      "  X itself; NV NVLink; PIX one PCIe switch; PXB several; PHB the host bridge;\n"
      "  NODE one NUMA node; SYS across the CPU interconnect; SW a GPU and a NIC under\n"
      "  one PCIe switch; * NVML: no peer-to-peer read or write for the pair; ? unknown\n"
      "  - a pair of NICs (not read)\n";
  return out;
}

std::string render_topology_nothing(const NodeSnapshot& s) {
  return std::string("gpu-triage topo: nothing to show: ") +
         (s.nvml.initialized ? "fewer than two GPUs with their pairs (NVML) or NUMA nodes (sysfs) "
                               "known, and no RDMA NIC\n"
                             : "NVML did not start (run gpu-triage for why)\n");
}

}  // namespace gt
