// A server's GPUs as a group: P2P lost on one pair, SYS among closer
// siblings, a NUMA split, and silence where NVML did not answer.
#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace {

/// Every pair of `n` GPUs answers `level` with read and write ok.
void all_pairs(NodeSnapshot& s, const std::string& level) {
  for (GpuState& g : s.gpus) {
    g.peers.emplace();
    for (const GpuState& o : s.gpus)
      if (o.index != g.index) g.peers->push_back({o.index, level, "ok", "ok", std::nullopt, "ok"});
  }
}

GpuPeer& peer(NodeSnapshot& s, uint32_t from, uint32_t to) {
  for (GpuPeer& p : *s.gpus[from].peers)
    if (p.index == to) return p;
  throw std::runtime_error("no such peer");
}

void tp_server(NodeSnapshot& s, uint32_t tp) {
  Server v;
  v.id = "pid-3187";
  v.kind = "SGLang";
  v.tensor_parallel = tp;
  for (uint32_t i = 0; i < tp; ++i) v.gpus.push_back({i, 1ull << 30});
  s.servers = std::vector<Server>{v};
}

std::vector<Finding> run(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_server_topology(s, out);
  return out;
}

TEST(ServerTopology, PairWithoutP2pInAVmNamesServerPairConsequenceAndHypervisor) {
  Report r = healthy_node(8);
  NodeSnapshot& s = r.snapshot;
  all_pairs(s, "node");
  tp_server(s, 8);
  s.machine_kind = "vm";
  s.machine_evidence = "DMI: QEMU Standard PC";
  peer(s, 3, 4).p2p_read = "chipset_not_supported";
  peer(s, 4, 3).p2p_read = "chipset_not_supported";
  peer(s, 4, 3).p2p_write = "chipset_not_supported";
  std::vector<Finding> f = run(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "topology.p2p_degraded");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].title,
            "SGLang server pid-3187 (TP=8): GPU pair 3-4 cannot use peer-to-peer at full speed");
  EXPECT_NE(f[0].evidence.find("GPUs 3-4: read: chipset_not_supported, write: "
                               "chipset_not_supported"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].evidence.find("through host memory: lower throughput"), std::string::npos);
  EXPECT_NE(f[0].action.find("hypervisor attached the GPUs"), std::string::npos) << f[0].action;
}

TEST(ServerTopology, BareMetalPointsAtAcsNotAHypervisor) {
  Report r = healthy_node(2);
  all_pairs(r.snapshot, "single");
  tp_server(r.snapshot, 2);
  r.snapshot.machine_kind = "bare-metal";
  peer(r.snapshot, 0, 1).p2p_write = "disabled_by_regkey";
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].action.find("hypervisor"), std::string::npos);
  EXPECT_NE(f[0].action.find("ACS"), std::string::npos);
}

TEST(ServerTopology, AllNvlinkOrAllSysOrUnknownSaysNothing) {
  Report r = healthy_node(8);
  all_pairs(r.snapshot, "single");
  tp_server(r.snapshot, 8);
  EXPECT_TRUE(run(r.snapshot).empty());
  all_pairs(r.snapshot, "system");  // the machine's design: every pair alike
  EXPECT_TRUE(run(r.snapshot).empty());
  for (GpuState& g : r.snapshot.gpus) g.peers.reset();  // NOT_SUPPORTED everywhere
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(ServerTopology, OneSysPairAmongCloserSiblings) {
  Report r = healthy_node(4);
  all_pairs(r.snapshot, "hostbridge");
  tp_server(r.snapshot, 4);
  peer(r.snapshot, 1, 2).level = "system";
  peer(r.snapshot, 2, 1).level = "system";
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("GPUs 1-2: crosses the CPU interconnect (SYS) where its "
                               "siblings do not"),
            std::string::npos)
      << f[0].evidence;
}

TEST(ServerTopology, TwoSocketsSysBetweenThemIsTheDesign) {
  Report r = healthy_node(8);
  NodeSnapshot& s = r.snapshot;
  for (uint32_t i = 0; i < 8; ++i) s.pci_devices[i].numa_node = i < 4 ? 0 : 1;
  all_pairs(s, "node");
  for (GpuState& g : s.gpus)
    for (GpuPeer& p : *g.peers)
      if ((g.index < 4) != (p.index < 4)) p.level = "system";
  tp_server(s, 8);
  EXPECT_TRUE(run(s).empty());
  peer(s, 0, 1).level = "system";  // within node 0: not the design
  std::vector<Finding> f = run(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("GPUs 0-1: crosses the CPU interconnect (SYS) within one NUMA node"),
            std::string::npos)
      << f[0].evidence;
}

TEST(ServerTopology, OnlyTpOrPpGroupsAreJudged) {
  Report r = healthy_node(2);
  all_pairs(r.snapshot, "node");
  tp_server(r.snapshot, 2);
  (*r.snapshot.servers)[0].tensor_parallel = 1;  // two replicas, no traffic between them
  peer(r.snapshot, 0, 1).p2p_read = "not_supported";
  EXPECT_TRUE(run(r.snapshot).empty());
  (*r.snapshot.servers)[0].pipeline_parallel = 2;
  EXPECT_EQ(run(r.snapshot).size(), 1u);
}

TEST(ServerTopology, GroupSplitAcrossNumaNodesWhereOneWouldHoldItIsInfo) {
  Report r = healthy_node(8);
  NodeSnapshot& s = r.snapshot;
  for (uint32_t i = 0; i < 8; ++i) s.pci_devices[i].numa_node = i < 4 ? 0 : 1;
  tp_server(s, 4);
  for (ServerGpu& g : (*s.servers)[0].gpus) g.index += 2;  // GPUs 2-5: 2 on each node
  std::vector<Finding> f = run(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "topology.numa_split");
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_EQ(f[0].title, "SGLang server pid-3187 (TP=4): its GPUs sit on 2 NUMA nodes (0, 1)");
  // TP=8 over 4+4 GPUs cannot sit on one node: the machine's design.
  tp_server(s, 8);
  EXPECT_TRUE(run(s).empty());
  // numa_node -1 (this VM's own /sys): unknown, nothing said.
  tp_server(s, 4);
  for (PciDevice& d : s.pci_devices) d.numa_node.reset();
  EXPECT_TRUE(run(s).empty());
}

}  // namespace
}  // namespace gt
