// RDMA readiness judged: which ports count, rates apart on one board type,
// the peer-memory module with its dma-buf alternative, and silence where a
// node has no RDMA device.
#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace rdma_checks_test {

RdmaPort ib_port(uint32_t state, const std::string& state_name, uint32_t phys,
                 const std::string& phys_name, double rate = 400) {
  RdmaPort p;
  p.port = 1;
  p.state_code = state;
  p.state = state_name;
  p.phys_state_code = phys;
  p.phys_state = phys_name;
  p.rate_gbps = rate;
  p.rate = rate == 400 ? "400 Gb/sec (4X NDR)" : "200 Gb/sec (4X HDR)";
  p.link_layer = "InfiniBand";
  return p;
}

RdmaPort active_port(double rate = 400) { return ib_port(4, "ACTIVE", 5, "LinkUp", rate); }

/// An HGX-like node: 8 GPUs, 8 single-port NDR HCAs, all active, each
/// under its GPU's switch, nvidia_peermem loaded.
Report rdma_node() {
  Report r = healthy_node();
  NodeSnapshot& s = r.snapshot;
  s.kernel_release = "6.8.0-51-generic";
  RdmaState st;
  for (int i = 0; i < 8; ++i) {
    RdmaDevice d;
    d.name = "mlx5_" + std::to_string(i);
    d.pci_bus_id = "0000:a" + std::to_string(i) + ":00.0";
    d.board_id = "MT_0000000838";
    d.ports.push_back(active_port());
    st.devices.push_back(d);
    st.gpu_nics.push_back({s.pci_devices[i].bus_id, d.name, "switch"});
  }
  st.peer_memory_module = "nvidia_peermem";
  st.open_kernel_module = false;
  s.rdma = st;
  return r;
}

std::vector<Finding> run(const NodeSnapshot& s) {
  std::vector<Finding> out;
  check_rdma(s, out);
  return out;
}

TEST(RdmaChecks, NoRdmaOrAHealthyFabricSaysNothing) {
  EXPECT_TRUE(run(healthy_node().snapshot).empty());
  EXPECT_TRUE(run(rdma_node().snapshot).empty());
}

TEST(RdmaChecks, AnInfinibandPortDownIsAWarningNamingItsStates) {
  Report r = rdma_node();
  r.snapshot.rdma->devices[3].ports[0] = ib_port(1, "DOWN", 2, "Polling");
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "rdma.port_down");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].title.find("mlx5_3 port 1"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].evidence.find("is DOWN, physical state Polling"), std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].action.find("cable"), std::string::npos);
  EXPECT_EQ(f[0].commands, std::vector<std::string>{"ibstat mlx5_3 1"});
}

TEST(RdmaChecks, LinkUpButNotActiveNamesTheSubnetManager) {
  Report r = rdma_node();
  r.snapshot.rdma->devices[0].ports[0] = ib_port(2, "INIT", 5, "LinkUp");
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].action.find("subnet manager"), std::string::npos) << f[0].action;
}

TEST(RdmaChecks, DesignsAreNotFaults) {
  Report r = rdma_node();
  auto& devs = r.snapshot.rdma->devices;
  devs[0].ports[0] = ib_port(1, "DOWN", 3, "Disabled");  // disabled on purpose
  // A RoCE port whose net device nobody configured up (a spare), and one
  // whose net device is unknown.
  RdmaPort roce = ib_port(1, "DOWN", 3, "Disabled");
  roce.link_layer = "Ethernet";
  roce.netdev = "eth2";
  roce.netdev_admin_up = false;
  devs[1].ports[0] = roce;
  roce.netdev_admin_up.reset();
  devs[2].ports[0] = roce;
  // A software RDMA device (rxe: no PCI function) down, and a port whose
  // state could not be read.
  devs[3].pci_bus_id.reset();
  devs[3].ports[0] = ib_port(1, "DOWN", 2, "Polling");
  devs[4].ports[0].state_code.reset();
  devs[4].ports[0].state.reset();
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(RdmaChecks, ARocePortDownUnderAnUpNetDeviceIsAFault) {
  Report r = rdma_node();
  RdmaPort roce = ib_port(1, "DOWN", 3, "Disabled");
  roce.link_layer = "Ethernet";
  roce.netdev = "ens1np0";
  roce.netdev_admin_up = true;
  roce.netdev_operstate = "down";
  r.snapshot.rdma->devices[5].ports[0] = roce;
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "rdma.port_down");
  EXPECT_NE(f[0].evidence.find("net device ens1np0 down"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(f[0].commands, std::vector<std::string>{"ip link show ens1np0"});
}

TEST(RdmaChecks, OneNdrPortAtHdrSpeedIsARateMismatch) {
  Report r = rdma_node();
  r.snapshot.rdma->devices[6].ports[0] = active_port(200);
  // Another board (a storage NIC) at its own rate is not compared.
  r.snapshot.rdma->devices[7].board_id = "MT_0000000970";
  r.snapshot.rdma->devices[7].ports[0] = active_port(200);
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "rdma.rate_mismatch");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].title.find("mlx5_6 port 1"), std::string::npos) << f[0].title;
  EXPECT_EQ(f[0].title.find("mlx5_7"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].evidence.find("mlx5_6 port 1 at 200 Gb/sec (4X HDR)"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("6 other active InfiniBand ports of board MT_0000000838 run at "
                               "400 Gb/sec (4X NDR)"),
            std::string::npos)
      << f[0].evidence;
  // Unknown boards are not compared.
  for (RdmaDevice& d : r.snapshot.rdma->devices) d.board_id.reset();
  EXPECT_TRUE(run(r.snapshot).empty());
}

TEST(RdmaChecks, NoPeerMemoryWithoutDmaBufIsAWarning) {
  Report r = rdma_node();
  r.snapshot.rdma->peer_memory_module.reset();
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "rdma.peermem_missing");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].evidence.find("8 of 8 GPUs share a PCIe switch"), std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].evidence.find("GPUDirect RDMA is off"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(f[0].commands[0], "sudo modprobe nvidia-peermem");
  // An old kernel with the open module: still no dma-buf.
  r.snapshot.rdma->open_kernel_module = true;
  r.snapshot.kernel_release = "5.4.0-150-generic";
  f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
}

TEST(RdmaChecks, WhereDmaBufMayStandInItIsANoteSayingWhatIsNotKnown) {
  Report r = rdma_node();
  r.snapshot.rdma->peer_memory_module.reset();
  r.snapshot.rdma->open_kernel_module = true;
  for (GpuNic& g : r.snapshot.rdma->gpu_nics) g.level.reset();
  std::vector<Finding> f = run(r.snapshot);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_NE(f[0].evidence.find("dma-buf"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("not known"), std::string::npos);
  EXPECT_NE(f[0].evidence.find("which GPUs share a PCIe switch with a NIC is not known"),
            std::string::npos)
      << f[0].evidence;
  // Unknown flavour: the same note, never a claim either way.
  r.snapshot.rdma->open_kernel_module.reset();
  EXPECT_EQ(run(r.snapshot).at(0).severity, Severity::kInfo);
}

TEST(RdmaChecks, PeerMemoryMattersOnlyWithActivePortsAndNvidiaGpus) {
  Report r = rdma_node();
  r.snapshot.rdma->peer_memory_module.reset();
  for (RdmaDevice& d : r.snapshot.rdma->devices) d.ports[0] = ib_port(1, "DOWN", 3, "Disabled");
  EXPECT_TRUE(run(r.snapshot).empty());
  r = rdma_node();
  r.snapshot.rdma->peer_memory_module.reset();
  r.snapshot.gpus.clear();
  r.snapshot.pci_devices.clear();
  EXPECT_TRUE(run(r.snapshot).empty());
}

}  // namespace rdma_checks_test
}  // namespace gt
