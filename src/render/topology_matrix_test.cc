// The topology matrix: 8 GPUs and 2 NICs within 80 columns, NVLink, a pair
// without P2P, unknowns as "?", hostile NIC names escaped, and nothing when
// there is nothing to show.
#include "render/topology_matrix.h"

#include <gtest/gtest.h>

#include <sstream>

#include "checks/test_node.h"
#include "render/golden.h"

namespace gt {
namespace topology_matrix_test {

/// The story's shape: two NUMA nodes of 4 GPUs (NODE within, SYS across),
/// GPUs 3-4 without P2P, and an NDR NIC under each half's switch.
NodeSnapshot two_socket_node() {
  Report r = healthy_node(8);
  NodeSnapshot s = r.snapshot;
  for (GpuState& g : s.gpus) {
    g.peers.emplace();
    for (const GpuState& o : s.gpus) {
      if (o.index == g.index) continue;
      const bool same = (g.index < 4) == (o.index < 4);
      g.peers->push_back({o.index, same ? "node" : "system", "ok", "ok", "not_supported", "ok"});
    }
  }
  for (GpuPeer& p : *s.gpus[3].peers)
    if (p.index == 4) p.p2p_read = p.p2p_write = "chipset_not_supported";
  for (uint32_t i = 0; i < 8; ++i) s.pci_devices[i].numa_node = i < 4 ? 0 : 1;
  s.numa_nodes =
      std::vector<NumaNode>{{0, parse_cpu_list("0-31,64-95")}, {1, parse_cpu_list("32-63,96-127")}};
  RdmaState rdma;
  for (int k = 0; k < 2; ++k) {
    RdmaDevice d;
    d.name = "mlx5_" + std::to_string(k);
    d.pci_bus_id = k == 0 ? "0000:17:00.0" : "0000:97:00.0";
    d.numa_node = static_cast<uint32_t>(k);
    rdma.devices.push_back(d);
  }
  for (const PciDevice& p : s.pci_devices) {
    GpuNic n;
    n.gpu_bus_id = p.bus_id;
    const bool low = *p.numa_node == 0;
    n.to_each = {{"mlx5_0", low ? "switch" : "system"}, {"mlx5_1", low ? "system" : "switch"}};
    rdma.gpu_nics.push_back(n);
  }
  s.rdma = rdma;
  return s;
}

TEST(TopologyMatrix, EightGpusAndTwoNicsFitEightyColumns) {
  const std::string m = render_topology_matrix(two_socket_node(), 80);
  std::istringstream lines(m);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  expect_golden("topology_matrix_80.txt", m);
  EXPECT_NE(m.find("  GPU3 NODE NODE NODE    X SYS*  SYS"), std::string::npos) << m;
  EXPECT_NE(m.find("NIC0: mlx5_0 (0000:17:00.0)"), std::string::npos) << m;
}

TEST(TopologyMatrix, NvlinkUnknownLevelsAndUnknownNodes) {
  NodeSnapshot s = two_socket_node();
  for (GpuState& g : s.gpus)
    for (GpuPeer& p : *g.peers) p.p2p_nvlink = "ok";
  (*s.gpus[0].peers)[0].p2p_nvlink.reset();  // 0 -> 1 unknown; 1 -> 0 still says NVLink
  s.numa_nodes.reset();
  s.rdma->gpu_nics[2].to_each[0].level.reset();
  const std::string m = render_topology_matrix(s, 80);
  EXPECT_NE(m.find("  GPU0    X   NV   NV   NV   NV   NV   NV   NV   SW  SYS    0  ?"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("  GPU2   NV   NV    X   NV   NV   NV   NV   NV    ?  SYS"), std::string::npos)
      << m;
}

TEST(TopologyMatrix, AHostileNicNameIsEscapedAndALongCpuListClipped) {
  NodeSnapshot s = two_socket_node();
  s.rdma->devices[0].name = "mlx5_0\x1b[2J";
  s.rdma->gpu_nics[0].to_each[0].nic = s.rdma->devices[0].name;
  s.numa_nodes = std::vector<NumaNode>{{0, parse_cpu_list("0,2,4,6,8,10,12,14,16,18,20,22")},
                                       {1, parse_cpu_list("1")}};
  const std::string m = render_topology_matrix(s, 80);
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  std::istringstream lines(m);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  EXPECT_NE(m.find(",~\n"), std::string::npos) << "the CPU list is clipped at a comma, marked";
}

TEST(TopologyMatrix, NothingToShowIsEmpty) {
  Report r = healthy_node(1);
  EXPECT_EQ(render_topology_matrix(r.snapshot, 80), "");
  Report two = healthy_node(2);
  EXPECT_EQ(render_topology_matrix(two.snapshot, 80), "") << "no peers, no NUMA nodes read";
  // The trial: NUMA nodes known without NVML's pairs still make a matrix (the CPUs to pin to).
  two.snapshot.pci_devices[0].numa_node = 0;
  two.snapshot.pci_devices[1].numa_node = 1;
  EXPECT_NE(render_topology_matrix(two.snapshot, 80).find("  GPU1    ?    X    1"),
            std::string::npos)
      << render_topology_matrix(two.snapshot, 80);
}

}  // namespace topology_matrix_test
}  // namespace gt
