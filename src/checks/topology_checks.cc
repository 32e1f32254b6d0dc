// Topology of a server's GPUs as a group (issue 38). A TP or PP server
// moves every token across all its GPUs, so one slow pair slows the whole
// group. NVML says per pair whether peer-to-peer works
// (nvmlDeviceGetP2PStatus) and what the pair shares
// (nvmlDeviceGetTopologyCommonAncestor). When a pair cannot use P2P, NCCL
// silently copies through host memory for it; when one pair crosses the CPU
// interconnect (SYS) while its siblings do not, that pair is the bottleneck.
// In a VM both usually come from how the hypervisor attached the GPUs (a
// re-attach after a crash can lose the P2P the pairs had). Unknown answers
// (null: NOT_SUPPORTED, a capture) never make a finding.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checks/checks.h"

namespace gt {
namespace {

const GpuPeer* peer_of(const NodeSnapshot& s, uint32_t from, uint32_t to) {
  for (const GpuState& g : s.gpus)
    if (g.index == from && g.peers)
      for (const GpuPeer& p : *g.peers)
        if (p.index == to) return &p;
  return nullptr;
}

/// "read: chipset_not_supported" for each P2P capability known and not ok
/// (read and write: what NCCL's P2P transport needs), in either direction.
std::vector<std::string> p2p_failures(const GpuPeer* ab, const GpuPeer* ba) {
  std::set<std::string> out;
  for (const GpuPeer* p : {ab, ba}) {
    if (!p) continue;
    if (p->p2p_read && *p->p2p_read != "ok") out.insert("read: " + *p->p2p_read);
    if (p->p2p_write && *p->p2p_write != "ok") out.insert("write: " + *p->p2p_write);
  }
  return {out.begin(), out.end()};
}

std::optional<std::string> level_of(const GpuPeer* ab, const GpuPeer* ba) {
  if (ab && ab->level) return ab->level;
  if (ba && ba->level) return ba->level;
  return std::nullopt;
}

std::string server_words(const Server& v) {
  std::string w = fmt::format("{} server {}", v.kind, v.id);
  std::vector<std::string> sizes;
  if (v.tensor_parallel.value_or(1) > 1) sizes.push_back(fmt::format("TP={}", *v.tensor_parallel));
  if (v.pipeline_parallel.value_or(1) > 1)
    sizes.push_back(fmt::format("PP={}", *v.pipeline_parallel));
  if (!sizes.empty()) w += fmt::format(" ({})", fmt::join(sizes, ", "));
  return w;
}

struct PairProblem {
  std::string pair;  ///< "3-4"
  std::string why;   ///< "read: chipset_not_supported" or "crosses the CPU interconnect (SYS)"
};

void judge_group(const NodeSnapshot& s, const Server& v, std::vector<Finding>& out) {
  std::vector<uint32_t> gpus;
  for (const ServerGpu& g : v.gpus) gpus.push_back(g.index);
  std::vector<PairProblem> problems;
  // Pairs by the NUMA nodes they join (null: unknown): SYS is the design
  // between two sockets, a fault only where pairs joining the same nodes
  // (or one node) are closer.
  using NodePair = std::pair<std::optional<uint32_t>, std::optional<uint32_t>>;
  std::map<NodePair, std::vector<std::string>> sys_pairs;
  std::map<NodePair, size_t> closer;
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      const GpuPeer* ab = peer_of(s, gpus[i], gpus[j]);
      const GpuPeer* ba = peer_of(s, gpus[j], gpus[i]);
      const std::string pair = fmt::format("{}-{}", gpus[i], gpus[j]);
      std::vector<std::string> fails = p2p_failures(ab, ba);
      if (!fails.empty()) problems.push_back({pair, fmt::format("{}", fmt::join(fails, ", "))});
      std::optional<uint32_t> na = gpu_numa_node(s, gpus[i]), nb = gpu_numa_node(s, gpus[j]);
      NodePair key = na < nb ? NodePair{na, nb} : NodePair{nb, na};
      std::optional<std::string> level = level_of(ab, ba);
      if (level == "system" && na && na == nb)
        problems.push_back({pair, "crosses the CPU interconnect (SYS) within one NUMA node"});
      else if (level == "system")
        sys_pairs[key].push_back(pair);
      else if (level)
        ++closer[key];
    }
  for (const auto& [key, pairs] : sys_pairs)
    if (closer.count(key))
      for (const std::string& p : pairs)
        problems.push_back({p, "crosses the CPU interconnect (SYS) where its siblings do not"});
  if (problems.empty()) return;
  Finding f = node_finding("topology.p2p_degraded");
  std::vector<std::string> pairs, lines;
  for (const PairProblem& p : problems) {
    if (std::find(pairs.begin(), pairs.end(), p.pair) == pairs.end()) pairs.push_back(p.pair);
    lines.push_back(fmt::format("GPUs {}: {}", p.pair, p.why));
  }
  f.title = fmt::format("{}: GPU {} {} cannot use peer-to-peer at full speed", server_words(v),
                        pairs.size() == 1 ? "pair" : "pairs", fmt::join(pairs, ", "));
  f.evidence = fmt::format(
      "{} (NVML, {} GPUs in the group); NCCL copies those pairs' traffic "
      "through host memory: lower throughput for the whole group",
      fmt::join(lines, "; "), gpus.size());
  const bool vm = s.machine_kind == std::optional<std::string>("vm");
  f.action = vm ? "this node is a VM: the likely cause is how the hypervisor attached the GPUs "
                  "(passthrough without peer-to-peer, or a re-attach that lost it); re-attach "
                  "them with P2P enabled on the host, then restart the server"
                : "check ACS and the IOMMU on the PCIe switches above these GPUs and the BIOS "
                  "P2P settings, or run the group on GPUs that share a switch";
  if (vm && s.machine_evidence) f.evidence += "; VM: " + *s.machine_evidence;
  f.commands = {"nvidia-smi topo -m", "nvidia-smi topo -p2p rw"};
  out.push_back(f);
}

/// A split is only worth saying when one node has GPUs enough for the whole
/// group: TP=8 over a two-socket machine's 4+4 GPUs is its design.
void judge_numa(const NodeSnapshot& s, const Server& v, std::vector<Finding>& out) {
  std::set<uint32_t> nodes;
  for (const ServerGpu& sg : v.gpus)
    if (auto n = gpu_numa_node(s, sg.index)) nodes.insert(*n);
  if (nodes.size() < 2) return;
  std::map<uint32_t, size_t> gpus_per_node;
  for (const GpuState& g : s.gpus)
    if (auto n = gpu_numa_node(s, g.index)) ++gpus_per_node[*n];
  size_t most = 0;
  for (const auto& [node, count] : gpus_per_node) most = std::max(most, count);
  if (most < v.gpus.size()) return;
  Finding f = node_finding("topology.numa_split");
  f.title = fmt::format("{}: its GPUs sit on {} NUMA nodes ({})", server_words(v), nodes.size(),
                        fmt::join(nodes, ", "));
  f.evidence = fmt::format(
      "sysfs numa_node of each GPU; one node has {} GPUs, enough for the group's {}; traffic "
      "between the nodes crosses the CPU interconnect",
      most, v.gpus.size());
  f.action =
      "nothing by itself; for the best throughput place the group on one NUMA node's "
      "GPUs and pin each rank to its GPU's node";
  f.commands = {"nvidia-smi topo -m"};
  out.push_back(f);
}

}  // namespace

void check_server_topology(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.servers) return;
  for (const Server& v : *s.servers) {
    const bool group = v.tensor_parallel.value_or(1) > 1 || v.pipeline_parallel.value_or(1) > 1;
    if (!group || v.gpus.size() < 2) continue;
    judge_group(s, v, out);
    judge_numa(s, v, out);
  }
}

}  // namespace gt
