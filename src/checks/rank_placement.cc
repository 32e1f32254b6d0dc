// Where a server's processes may run against where their GPUs sit (issue
// 38 item 4). Each rank copies between host memory and its GPU and runs its
// CPU work (tokenising, the scheduler, NCCL's proxy thread) near its GPU
// only if its CPUs are on the GPU's NUMA node. A rank whose affinity
// (Cpus_allowed_list: taskset, numactl, a cpuset, a launcher's --cpu-bind)
// holds no CPU of its GPU's node crosses the CPU interconnect for all of
// it: the group runs at that rank's pace. An affinity that includes the
// node (an unpinned process has every CPU) is fine; anything unknown (no
// NUMA sysfs, numa_node -1, one node, a PID not visible here, a capture)
// says nothing.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/checks.h"

namespace gt {
namespace {

/// The process as /proc showed it, with its CPUs; nullptr when unknown.
const GpuProcess* process_with_cpus(const NodeSnapshot& s, uint32_t pid) {
  for (const GpuState& g : s.gpus) {
    if (!g.processes) continue;
    for (const GpuProcess& p : *g.processes)
      if (p.pid == pid && p.visible && p.cpus_allowed && !p.cpus_allowed->empty()) return &p;
  }
  return nullptr;
}

/// The GPU a member works on: its one GPU, or the first of several on one
/// node, or the one it holds the most memory on. A process on GPUs of
/// different nodes with any size unknown has no one GPU (nullopt): it is not
/// judged.
std::optional<uint32_t> main_gpu(const NodeSnapshot& s, const ServerMember& m) {
  if (m.memory.empty()) return std::nullopt;
  if (m.memory.size() == 1) return m.memory[0].first;
  const std::optional<uint32_t> node = gpu_numa_node(s, m.memory[0].first);
  const bool one_node = std::all_of(m.memory.begin(), m.memory.end(), [&](const auto& g) {
    return gpu_numa_node(s, g.first) == node;
  });
  if (one_node) return m.memory[0].first;
  // On two nodes: the most memory says where it works, only when every size is known.
  const bool sizes_known = std::all_of(m.memory.begin(), m.memory.end(),
                                       [](const auto& g) { return g.second.has_value(); });
  if (!sizes_known) return std::nullopt;
  return std::max_element(m.memory.begin(), m.memory.end(),
                          [](const auto& a, const auto& b) { return *a.second < *b.second; })
      ->first;
}

const NumaNode* node_by_id(const std::vector<NumaNode>& nodes, uint32_t id) {
  for (const NumaNode& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

/// The nodes whose CPUs `cpus` has some of: "node 0", "nodes 0, 1".
std::string nodes_words(const std::vector<NumaNode>& nodes, const CpuList& cpus) {
  std::vector<uint32_t> ids;
  for (const NumaNode& n : nodes)
    if (n.cpus && n.cpus->intersects(cpus)) ids.push_back(n.id);
  if (ids.empty()) return "no known node";
  return fmt::format("{} {}", ids.size() == 1 ? "node" : "nodes", fmt::join(ids, ", "));
}

/// Nodes that have CPUs: with fewer than two there is no far node.
size_t nodes_with_cpus(const std::vector<NumaNode>& nodes) {
  return static_cast<size_t>(std::count_if(
      nodes.begin(), nodes.end(), [](const NumaNode& n) { return n.cpus && !n.cpus->empty(); }));
}

struct FarRank {
  std::string who;  ///< "rank 1 (pid 5102, GPU 4)"
  std::string
      where;  ///< "GPU 4 is on NUMA node 1 (CPUs 32-63); pid 5102 may run on CPUs 0-31 (node 0)"
};

std::optional<FarRank> far_rank(const NodeSnapshot& s, const ServerMember& m) {
  const std::optional<uint32_t> gpu = main_gpu(s, m);
  if (!gpu) return std::nullopt;
  const std::optional<uint32_t> node_id = gpu_numa_node(s, *gpu);
  const GpuProcess* p = process_with_cpus(s, m.pid);
  if (!node_id || !p) return std::nullopt;
  const NumaNode* node = node_by_id(*s.numa_nodes, *node_id);
  if (!node || !node->cpus || node->cpus->empty()) return std::nullopt;
  if (p->cpus_allowed->intersects(*node->cpus)) return std::nullopt;
  // CPUs of no known node (a list the kernel would not write): unknown.
  const bool on_a_node = std::any_of(s.numa_nodes->begin(), s.numa_nodes->end(), [&](auto& n) {
    return n.cpus && n.cpus->intersects(*p->cpus_allowed);
  });
  if (!on_a_node) return std::nullopt;
  FarRank r;
  r.who = m.rank ? fmt::format("rank {} (pid {}, GPU {})", *m.rank, m.pid, *gpu)
                 : fmt::format("pid {} (GPU {})", m.pid, *gpu);
  r.where =
      fmt::format("GPU {} is on NUMA node {} (CPUs {}); pid {} may run on CPUs {} ({})", *gpu,
                  *node_id, format_cpu_list(*node->cpus), m.pid, format_cpu_list(*p->cpus_allowed),
                  nodes_words(*s.numa_nodes, *p->cpus_allowed));
  return r;
}

std::string server_name(const Server& v) {
  std::string w = fmt::format("{} server {}", v.kind, v.id);
  if (v.tensor_parallel.value_or(1) > 1) w += fmt::format(" (TP={})", *v.tensor_parallel);
  return w;
}

}  // namespace

void check_rank_placement(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.servers || !s.numa_nodes || nodes_with_cpus(*s.numa_nodes) < 2) return;
  for (const Server& v : *s.servers) {
    std::vector<FarRank> far;
    for (const ServerMember& m : v.members)
      if (std::optional<FarRank> r = far_rank(s, m)) far.push_back(std::move(*r));
    if (far.empty()) continue;
    std::vector<std::string> who, where;
    for (const FarRank& r : far) {
      who.push_back(r.who);
      where.push_back(r.where);
    }
    Finding f = node_finding("topology.rank_far_numa");
    f.title = fmt::format("{}: {} {} pinned away from {} GPU's NUMA node", server_name(v),
                          fmt::join(who, ", "), far.size() == 1 ? "is" : "are",
                          far.size() == 1 ? "its" : "their");
    f.evidence = fmt::format(
        "{} (Cpus_allowed_list in /proc/PID/status, /sys/devices/system/node/node*/cpulist); every "
        "copy between host memory and the GPU and the rank's CPU work cross the CPU "
        "interconnect: the whole group runs at that rank's pace",
        fmt::join(where, "; "));
    f.action =
        "pin each rank to its GPU's NUMA node (numactl --cpunodebind=N --membind=N, taskset, or "
        "the launcher's CPU binding), or drop the pinning, then restart the server";
    f.commands = {"nvidia-smi topo -m", "numactl --hardware"};
    for (const ServerMember& m : v.members)
      if (process_with_cpus(s, m.pid)) f.commands.push_back(fmt::format("taskset -cp {}", m.pid));
    out.push_back(f);
  }
}

}  // namespace gt
