// The RDMA reader over fixture trees: the real symlinked layout of a node
// (class link, `device` link, bus links into /sys/devices), plain folders,
// RoCE net devices, the peer-memory module, and hostile files.
#include "sources/sysfs/rdma_devices.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace rdma_devices_test {

const std::string kSwitch = "pci0000:16/0000:16:02.0/0000:17:00.0";
const std::string kGpuRel = kSwitch + "/0000:18:00.0/0000:19:00.0";
const std::string kNicRel = kSwitch + "/0000:18:01.0/0000:1a:00.0";

/// A PCI function at /sys/devices/<rel> with its bus link and NUMA node.
void pci_function(const TempTree& t, const std::string& rel, const std::string& numa) {
  const std::string bdf = rel.substr(rel.rfind('/') + 1);
  t.write("/sys/devices/" + rel + "/numa_node", numa + "\n");
  t.symlink("../../../devices/" + rel, "/sys/bus/pci/devices/" + bdf);
}

/// An RDMA device on the function at `rel`, laid out as the kernel does.
std::string rdma_device(const TempTree& t, const std::string& name, const std::string& rel) {
  const std::string bdf = rel.substr(rel.rfind('/') + 1);
  const std::string dir = "/sys/devices/" + rel + "/infiniband/" + name;
  t.symlink("../../devices/" + rel + "/infiniband/" + name, "/sys/class/infiniband/" + name);
  t.symlink("../../../" + bdf, dir + "/device");
  t.write(dir + "/board_id", "MT_0000000838\n");
  t.write(dir + "/fw_ver", "28.39.1002\n");
  return dir;
}

void port(const TempTree& t, const std::string& dir, int n, const std::string& state,
          const std::string& phys, const std::string& rate, const std::string& layer) {
  const std::string p = dir + "/ports/" + std::to_string(n);
  t.write(p + "/state", state + "\n");
  t.write(p + "/phys_state", phys + "\n");
  t.write(p + "/rate", rate + "\n");
  t.write(p + "/link_layer", layer + "\n");
}

PciDevice gpu_at(const std::string& bus, std::optional<uint32_t> numa) {
  PciDevice d;
  d.bus_id = bus;
  d.numa_node = numa;
  return d;
}

std::optional<RdmaState> read(const TempTree& t, std::vector<PciDevice> gpus = {},
                              std::vector<KernelModule> mods = {}) {
  std::vector<std::string> warnings;
  return read_rdma(t.root(), gpus, mods, warnings);
}

TEST(RdmaDevices, NoInfinibandClassSaysNothing) {
  TempTree t;
  t.write("/sys/class/net/eth0/operstate", "up\n");
  EXPECT_EQ(read(t), std::nullopt);
  t.write("/sys/class/infiniband/.keep", "");
  std::filesystem::remove(t.path("/sys/class/infiniband/.keep"));
  EXPECT_EQ(read(t), std::nullopt);  // an empty class folder
}

TEST(RdmaDevices, RealLayoutGivesPortsPciAddressAndNearestNic) {
  TempTree t;
  pci_function(t, kGpuRel, "0");
  pci_function(t, kNicRel, "0");
  port(t, rdma_device(t, "mlx5_0", kNicRel), 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)",
       "InfiniBand");
  std::optional<RdmaState> r = read(t, {gpu_at("0000:19:00.0", 0)});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->devices.size(), 1u);
  const RdmaDevice& d = r->devices[0];
  EXPECT_EQ(d.name, "mlx5_0");
  EXPECT_EQ(d.pci_bus_id, "0000:1a:00.0");
  EXPECT_EQ(d.pci_path, "/sys/devices/" + kNicRel);
  EXPECT_EQ(d.numa_node, 0u);
  EXPECT_EQ(d.board_id, "MT_0000000838");
  EXPECT_EQ(d.fw_ver, "28.39.1002");
  ASSERT_EQ(d.ports.size(), 1u);
  EXPECT_EQ(d.ports[0].port, 1u);
  EXPECT_EQ(d.ports[0].state_code, 4u);
  EXPECT_EQ(d.ports[0].state, "ACTIVE");
  EXPECT_EQ(d.ports[0].phys_state_code, 5u);
  EXPECT_EQ(d.ports[0].phys_state, "LinkUp");
  EXPECT_EQ(d.ports[0].rate_gbps, 400.0);
  EXPECT_EQ(d.ports[0].rate, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(d.ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(d.ports[0].netdev, std::nullopt);
  ASSERT_EQ(r->gpu_nics.size(), 1u);
  EXPECT_EQ(r->gpu_nics[0].gpu_bus_id, "0000:19:00.0");
  EXPECT_EQ(r->gpu_nics[0].nic, "mlx5_0");
  EXPECT_EQ(r->gpu_nics[0].level, "switch");
  EXPECT_EQ(r->peer_memory_module, std::nullopt);
  EXPECT_EQ(r->open_kernel_module, std::nullopt);
}

TEST(RdmaDevices, NearestOfSeveralNicsAndUnknownOnPlainFolders) {
  TempTree t;
  pci_function(t, kGpuRel, "0");
  pci_function(t, "pci0000:9a/0000:9a:01.0/0000:9b:00.0", "1");
  pci_function(t, kNicRel, "0");
  port(t, rdma_device(t, "mlx5_0", "pci0000:9a/0000:9a:01.0/0000:9b:00.0"), 1, "4: ACTIVE",
       "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand");
  port(t, rdma_device(t, "mlx5_1", kNicRel), 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)",
       "InfiniBand");
  // A GPU in a plain folder (no link): its NIC's level is unknown.
  t.write("/sys/bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
  std::optional<RdmaState> r =
      read(t, {gpu_at("0000:19:00.0", 0), gpu_at("0000:3b:00.0", std::nullopt)});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->gpu_nics.size(), 2u);
  EXPECT_EQ(r->gpu_nics[0].nic, "mlx5_1");
  EXPECT_EQ(r->gpu_nics[0].level, "switch");
  EXPECT_EQ(r->gpu_nics[1].nic, std::nullopt);
  EXPECT_EQ(r->gpu_nics[1].level, std::nullopt);
}

// The trial: a bundle keeps a NIC's class folder as a plain folder, so its
// nearness is unknown; a NIC on the other socket (SYS) must not then be
// named the GPU's nearest.
TEST(RdmaDevices, ANicOfUnknownNearnessIsNotPassedOverForAFarOne) {
  TempTree t;
  pci_function(t, kGpuRel, "0");
  pci_function(t, "pci0000:9a/0000:9a:01.0/0000:9b:00.0", "1");
  port(t, rdma_device(t, "mlx5_4", "pci0000:9a/0000:9a:01.0/0000:9b:00.0"), 1, "4: ACTIVE",
       "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand");
  const std::string plain = "/sys/class/infiniband/mlx5_0";
  t.write(plain + "/device/uevent", "DRIVER=mlx5_core\nPCI_SLOT_NAME=0000:1a:00.0\n");
  t.write("/sys/bus/pci/devices/0000:1a:00.0/numa_node", "0\n");
  port(t, plain, 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand");
  std::optional<RdmaState> r = read(t, {gpu_at("0000:19:00.0", 0)});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->gpu_nics.size(), 1u);
  EXPECT_EQ(r->gpu_nics[0].nic, std::nullopt);
  EXPECT_EQ(r->gpu_nics[0].level, std::nullopt);
  ASSERT_EQ(r->gpu_nics[0].to_each.size(), 2u);
  EXPECT_EQ(r->gpu_nics[0].to_each[0].nic, "mlx5_0");
  EXPECT_EQ(r->gpu_nics[0].to_each[0].level, std::nullopt);
  EXPECT_EQ(r->gpu_nics[0].to_each[1].level, "system");
}

TEST(RdmaDevices, PlainFolderFixtureTakesTheUeventSlotName) {
  TempTree t;
  const std::string dir = "/sys/class/infiniband/mlx5_2";
  t.write(dir + "/device/uevent", "DRIVER=mlx5_core\nPCI_SLOT_NAME=0000:cb:00.0\n");
  t.write("/sys/bus/pci/devices/0000:cb:00.0/numa_node", "-1\n");
  port(t, dir, 1, "1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)", "InfiniBand");
  std::optional<RdmaState> r = read(t);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->devices[0].pci_bus_id, "0000:cb:00.0");
  EXPECT_EQ(r->devices[0].numa_node, std::nullopt);  // -1: none
  EXPECT_EQ(r->devices[0].pci_path, std::nullopt);
  EXPECT_EQ(r->devices[0].ports[0].state, "DOWN");
  EXPECT_EQ(r->devices[0].ports[0].phys_state, "Polling");
}

TEST(RdmaDevices, RoceReadsTheNetDeviceOfGidZero) {
  TempTree t;
  const std::string dir = "/sys/class/infiniband/mlx5_bond_0";
  port(t, dir, 1, "1: DOWN", "3: Disabled", "40 Gb/sec (4X QDR)", "Ethernet");
  t.write(dir + "/ports/1/gid_attrs/ndevs/0", "bond0\n");
  t.write("/sys/class/net/bond0/flags", "0x1003\n");
  t.write("/sys/class/net/bond0/operstate", "down\n");
  std::optional<RdmaState> r = read(t);
  ASSERT_TRUE(r);
  const RdmaPort& p = r->devices[0].ports[0];
  EXPECT_EQ(p.netdev, "bond0");
  EXPECT_EQ(p.netdev_admin_up, true);
  EXPECT_EQ(p.netdev_operstate, "down");
  EXPECT_EQ(r->devices[0].pci_bus_id, std::nullopt);  // no device folder at all
}

TEST(RdmaDevices, PeerMemoryModuleAsNcclLooksForIt) {
  TempTree t;
  port(t, "/sys/class/infiniband/mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)",
       "InfiniBand");
  t.write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build\n");
  EXPECT_EQ(read(t)->peer_memory_module, std::nullopt);
  EXPECT_EQ(read(t)->open_kernel_module, true);
  EXPECT_EQ(read(t, {}, {{"nvidia_peermem", 0, {}}})->peer_memory_module, "nvidia_peermem");
  t.write("/sys/kernel/mm/memory_peers/nv_mem/version", "1.3-0\n");
  EXPECT_EQ(read(t)->peer_memory_module, "nv_peer_mem");
  t.write("/sys/module/nvidia_peermem/version", "570.133.20\n");
  EXPECT_EQ(read(t)->peer_memory_module, "nvidia_peermem");
  t.write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Release Build\n");
  EXPECT_EQ(read(t)->open_kernel_module, false);
}

TEST(RdmaDevices, HostileFilesAreUnknownNeverAState) {
  TempTree t;
  const std::string dir = "/sys/class/infiniband/mlx5_0";
  port(t, dir, 1, "ACTIVE", "5:", "inf Gb/sec (4X NDR)", "Infini\x1b[2Jband");
  port(t, dir, 2, "99999999999: ACTIVE", "5: Link\nUp", "1e308 Gb/sec", std::string(200, 'A'));
  port(t, dir, 3, "", "", "400 Mb/sec", "");
  t.write(dir + "/ports/4/state", std::string(1 << 16, '4'));
  t.write(dir + "/ports/junk/state", "4: ACTIVE\n");
  t.write(dir + "/board_id",
          "MT\x01"
          "bad\n");
  t.symlink("device", dir + "/device");  // a loop
  std::optional<RdmaState> r = read(t);
  ASSERT_TRUE(r);
  const RdmaDevice& d = r->devices[0];
  EXPECT_EQ(d.pci_bus_id, std::nullopt);
  EXPECT_EQ(d.board_id, std::nullopt);
  ASSERT_EQ(d.ports.size(), 4u);  // "junk" is no port number
  for (const RdmaPort& p : d.ports) {
    EXPECT_EQ(p.state_code, std::nullopt) << p.port;
    EXPECT_EQ(p.state, std::nullopt) << p.port;
    EXPECT_EQ(p.phys_state, std::nullopt) << p.port;
    EXPECT_EQ(p.rate_gbps, std::nullopt) << p.port;
    EXPECT_EQ(p.rate, std::nullopt) << p.port;
    EXPECT_EQ(p.link_layer, std::nullopt) << p.port;
  }
}

TEST(RdmaDevices, BoundsAndAMissingPortsFolder) {
  TempTree t;
  for (int i = 1; i <= 40; ++i)
    t.write("/sys/class/infiniband/mlx5_0/ports/" + std::to_string(i) + "/state", "4: ACTIVE\n");
  t.write("/sys/class/infiniband/mlx5_9/board_id", "MT_0000000838\n");
  std::optional<RdmaState> r = read(t);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->devices.size(), 2u);
  EXPECT_EQ(r->devices[0].ports.size(), kMaxRdmaPorts);
  EXPECT_EQ(r->devices[0].ports.front().port, 1u);
  EXPECT_TRUE(r->devices[1].ports.empty());
  EXPECT_TRUE(r->devices[1].error.has_value());
}

TEST(RdmaDevices, ParsersFollowTheKernelsFormats) {
  EXPECT_EQ(parse_numbered_state("4: ACTIVE"), (std::pair<uint32_t, std::string>{4, "ACTIVE"}));
  EXPECT_EQ(parse_numbered_state("5: ACTIVE_DEFER"),
            (std::pair<uint32_t, std::string>{5, "ACTIVE_DEFER"}));
  EXPECT_EQ(parse_numbered_state("4: PortConfigurationTraining"),
            (std::pair<uint32_t, std::string>{4, "PortConfigurationTraining"}));
  EXPECT_EQ(parse_numbered_state("7: Phy Test"), (std::pair<uint32_t, std::string>{7, "Phy Test"}));
  EXPECT_EQ(parse_numbered_state(": ACTIVE"), std::nullopt);
  EXPECT_EQ(parse_numbered_state("-1: DOWN"), std::nullopt);
  EXPECT_EQ(parse_rate_gbps("400 Gb/sec (4X NDR)"), 400.0);
  EXPECT_EQ(parse_rate_gbps("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_EQ(parse_rate_gbps("0 Gb/sec (1X SDR)"), std::nullopt);
  EXPECT_EQ(parse_rate_gbps("nan Gb/sec"), std::nullopt);
  EXPECT_EQ(parse_rate_gbps("400"), std::nullopt);
}

}  // namespace rdma_devices_test
}  // namespace gt
