// PCI chains from sysfs paths, how near two functions are, and the paths
// behind /sys/bus/pci/devices links (real links, plain folders, loops).
#include "sources/sysfs/pci_nearness.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace pci_nearness_test {

const std::string kGpu =
    "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0";
const std::string kNicSameSwitch =
    "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:01.0/0000:1a:00.0";
const std::string kNicOtherRootPort = "/sys/devices/pci0000:16/0000:16:03.0/0000:1b:00.0";
const std::string kNicOtherHostBridge = "/sys/devices/pci0000:9a/0000:9a:01.0/0000:9b:00.0";

TEST(PciNearness, AddressesAreLowercaseDomainBusDeviceFunction) {
  EXPECT_TRUE(is_pci_address("0000:17:00.0"));
  EXPECT_FALSE(is_pci_address("0000:17:00.8"));
  EXPECT_FALSE(is_pci_address("0000:1A:00.0"));
  EXPECT_FALSE(is_pci_address("17:00.0"));
  EXPECT_FALSE(is_pci_address("0000:17:00.0x"));
}

TEST(PciNearness, ChainFromHostBridgeToFunction) {
  EXPECT_EQ(pci_chain(kNicOtherRootPort),
            (std::vector<std::string>{"pci0000:16", "0000:16:03.0", "0000:1b:00.0"}));
  // A VM's VMBus path, a plain folder, a path outside /sys/devices: none.
  EXPECT_TRUE(pci_chain("/sys/devices/LNXSYSTM:00/VMBUS:00/abc/pci1a2b:00/1a2b:00:00.0").empty());
  EXPECT_TRUE(pci_chain("/sys/bus/pci/devices/0000:19:00.0").empty());
  EXPECT_TRUE(pci_chain("/sys/devices/pci0000:16/not-a-bdf/0000:19:00.0").empty());
  std::string deep = "/sys/devices/pci0000:00";
  for (int i = 0; i < 40; ++i) deep += "/0000:01:00.0";
  EXPECT_TRUE(pci_chain(deep).empty());
}

TEST(PciNearness, LevelsFromTheCommonBridges) {
  EXPECT_EQ(pci_nearness(kGpu, 0, kNicSameSwitch, 0), "switch");
  EXPECT_EQ(pci_nearness(kGpu, 0, kNicOtherRootPort, 0), "host_bridge");
  EXPECT_EQ(pci_nearness(kGpu, 0, kNicOtherHostBridge, 0), "numa_node");
  EXPECT_EQ(pci_nearness(kGpu, 0, kNicOtherHostBridge, 1), "system");
  // The GPU directly below the root port the NIC's switch hangs from.
  EXPECT_EQ(pci_nearness("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0", 0, kNicSameSwitch, 0),
            "host_bridge");
}

TEST(PciNearness, WithoutPathsOnlyTwoNumaNodesSaySomething) {
  EXPECT_EQ(pci_nearness(std::nullopt, 0, std::nullopt, 1), "system");
  EXPECT_EQ(pci_nearness(std::nullopt, 0, std::nullopt, 0), std::nullopt);
  EXPECT_EQ(pci_nearness(kGpu, std::nullopt, kNicOtherHostBridge, std::nullopt), std::nullopt);
  EXPECT_EQ(pci_nearness(kGpu, 0, std::nullopt, 0), std::nullopt);
}

TEST(PciNearness, RankOrdersNearestFirst) {
  EXPECT_LT(nearness_rank("switch"), nearness_rank("host_bridge"));
  EXPECT_LT(nearness_rank("numa_node"), nearness_rank("system"));
  EXPECT_LT(nearness_rank("system"), nearness_rank(std::nullopt));
  EXPECT_EQ(nearness_rank("bogus"), nearness_rank(std::nullopt));
}

TEST(PciNearness, DevicePathFollowsTheBusLinkInsideTheRoot) {
  TempTree t;
  t.write(kGpu + "/vendor", "0x10de\n");
  t.symlink("../../../devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0",
            "/sys/bus/pci/devices/0000:19:00.0");
  EXPECT_EQ(pci_device_path(t.root(), "0000:19:00.0"), kGpu);
  // A plain folder (a fixture, a bundle's copy): no path.
  t.write("/sys/bus/pci/devices/0000:3b:00.0/vendor", "0x10de\n");
  EXPECT_EQ(pci_device_path(t.root(), "0000:3b:00.0"), std::nullopt);
  // A loop, a link to another function, a link out of the tree, a bad address.
  t.symlink("0000:4c:00.0", "/sys/bus/pci/devices/0000:4c:00.0");
  EXPECT_EQ(pci_device_path(t.root(), "0000:4c:00.0"), std::nullopt);
  t.symlink("../../../devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0",
            "/sys/bus/pci/devices/0000:5d:00.0");
  EXPECT_EQ(pci_device_path(t.root(), "0000:5d:00.0"), std::nullopt);
  t.symlink("/../../../../../etc", "/sys/bus/pci/devices/0000:6e:00.0");
  EXPECT_EQ(pci_device_path(t.root(), "0000:6e:00.0"), std::nullopt);
  EXPECT_EQ(pci_device_path(t.root(), "../../../etc"), std::nullopt);
  EXPECT_EQ(pci_device_path(t.root(), "0000:7f:00.0"), std::nullopt);
}

}  // namespace pci_nearness_test
}  // namespace gt
