// A server's processes against their GPUs' NUMA nodes: a rank pinned to the
// far node is named; unpinned, near, partly near or unknown says nothing.
#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace rank_placement_test {

/// Two nodes of 32 CPUs; GPUs 0-3 on node 0, 4-7 on node 1.
void two_sockets(NodeSnapshot& s) {
  s.numa_nodes = std::vector<NumaNode>{{0, parse_cpu_list("0-31")}, {1, parse_cpu_list("32-63")}};
  for (uint32_t i = 0; i < s.pci_devices.size(); ++i) s.pci_devices[i].numa_node = i < 4 ? 0 : 1;
}

/// A TP=2 server on `gpus`, its ranks allowed `cpus` each.
void tp2(NodeSnapshot& s, std::vector<uint32_t> gpus, std::vector<std::string> cpus) {
  Server v;
  v.id = "pid-5100";
  v.kind = "vLLM";
  v.tensor_parallel = 2;
  for (size_t r = 0; r < gpus.size(); ++r) {
    const uint32_t pid = 5101 + static_cast<uint32_t>(r);
    ServerMember m;
    m.pid = pid;
    m.rank = static_cast<uint32_t>(r);
    m.memory = {{gpus[r], 70ull << 30}};
    v.members.push_back(m);
    v.gpus.push_back({gpus[r], 70ull << 30});
    GpuProcess p;
    p.pid = pid;
    p.visible = true;
    if (!cpus[r].empty()) p.cpus_allowed = parse_cpu_list(cpus[r]);
    s.gpus[gpus[r]].processes = std::vector<GpuProcess>{p};
  }
  s.servers = std::vector<Server>{v};
}

std::vector<Finding> run(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_rank_placement(s, out);
  return out;
}

TEST(RankPlacement, ARankPinnedToTheFarNodeIsNamedWithBothCpuLists) {
  Report r = healthy_node(8);
  two_sockets(r.snapshot);
  tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "topology.rank_far_numa");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].title,
            "vLLM server pid-5100 (TP=2): rank 1 (pid 5102, GPU 4) is pinned away from its GPU's "
            "NUMA node");
  EXPECT_NE(f[0].evidence.find("GPU 4 is on NUMA node 1 (CPUs 32-63); pid 5102 may run on CPUs "
                               "0-31 (node 0)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_EQ(f[0].evidence.find("pid 5101"), std::string::npos) << "rank 0 is near its GPU";
  EXPECT_NE(std::find(f[0].commands.begin(), f[0].commands.end(), "taskset -cp 5102"),
            f[0].commands.end());
}

TEST(RankPlacement, BothRanksFarAreBothNamed) {
  Report r = healthy_node(8);
  two_sockets(r.snapshot);
  tp2(r.snapshot, {0, 1}, {"40-47", "32-63"});
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].title.find(
                "rank 0 (pid 5101, GPU 0), rank 1 (pid 5102, GPU 1) are pinned away from their"),
            std::string::npos)
      << f[0].title;
}

TEST(RankPlacement, UnpinnedNearOrPartlyNearSaysNothing) {
  for (const std::vector<std::string>& cpus :
       {std::vector<std::string>{"0-63", "0-63"}, {"0-31", "32-63"}, {"0-3", "30-40"}}) {
    Report r = healthy_node(8);
    two_sockets(r.snapshot);
    tp2(r.snapshot, {0, 4}, cpus);
    EXPECT_TRUE(run(r.snapshot).empty()) << cpus[0] << " " << cpus[1];
  }
}

TEST(RankPlacement, UnknownAnywhereSaysNothing) {
  {  // this VM's own /sys: numa_node -1
    Report r = healthy_node(8);
    two_sockets(r.snapshot);
    for (PciDevice& d : r.snapshot.pci_devices) d.numa_node.reset();
    tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
    EXPECT_TRUE(run(r.snapshot).empty());
  }
  {  // one node: no far node
    Report r = healthy_node(8);
    two_sockets(r.snapshot);
    r.snapshot.numa_nodes->pop_back();
    tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
    EXPECT_TRUE(run(r.snapshot).empty());
  }
  {  // no NUMA sysfs, a PID not visible, a node's cpulist unreadable, no affinity read
    Report r = healthy_node(8);
    two_sockets(r.snapshot);
    tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
    NodeSnapshot none = r.snapshot;
    none.numa_nodes.reset();
    EXPECT_TRUE(run(none).empty());
    NodeSnapshot hidden = r.snapshot;
    (*hidden.gpus[4].processes)[0].visible = false;
    EXPECT_TRUE(run(hidden).empty());
    NodeSnapshot unread = r.snapshot;
    (*unread.numa_nodes)[1].cpus.reset();
    EXPECT_TRUE(run(unread).empty());
    NodeSnapshot no_affinity = r.snapshot;
    (*no_affinity.gpus[4].processes)[0].cpus_allowed.reset();
    EXPECT_TRUE(run(no_affinity).empty());
  }
  {  // a memory-only third node does not make a one-socket machine two
    Report r = healthy_node(8);
    r.snapshot.numa_nodes = std::vector<NumaNode>{{0, parse_cpu_list("0-63")}, {1, CpuList{}}};
    for (PciDevice& d : r.snapshot.pci_devices) d.numa_node = 1;
    tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
    EXPECT_TRUE(run(r.snapshot).empty());
  }
}

TEST(RankPlacement, AProcessOnGpusOfTwoNodesIsJudgedByWhereItsMemoryIs) {
  Report r = healthy_node(8);
  two_sockets(r.snapshot);
  tp2(r.snapshot, {0, 4}, {"0-31", "0-31"});
  // Rank 1 also has a small context on GPU 0 (the classic cuda:0 context).
  (*r.snapshot.servers)[0].members[1].memory = {{0, 500ull << 20}, {4, 70ull << 30}};
  EXPECT_EQ(run(r.snapshot).size(), 1u) << "its work is on GPU 4";
  (*r.snapshot.servers)[0].members[1].memory = {{0, std::nullopt}, {4, std::nullopt}};
  EXPECT_TRUE(run(r.snapshot).empty()) << "sizes unknown, GPUs on two nodes: not judged";
  // The trial: one size unknown (on its near GPU) is not "the most memory on GPU 4".
  (*r.snapshot.servers)[0].members[1].memory = {{0, std::nullopt}, {4, 70ull << 30}};
  EXPECT_TRUE(run(r.snapshot).empty()) << "one size unknown: not judged";
}

// The trial: CPUs that no node has (200-201 on a 64-CPU machine) are not a
// placement on the far node.
TEST(RankPlacement, CpusOfNoKnownNodeAreUnknown) {
  Report r = healthy_node(8);
  two_sockets(r.snapshot);
  tp2(r.snapshot, {0, 4}, {"0-31", "200-201"});
  EXPECT_TRUE(run(r.snapshot).empty());
}

}  // namespace rank_placement_test
}  // namespace gt
