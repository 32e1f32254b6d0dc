#include "sources/sysfs/pci_path.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace pci_path_test {

TEST(PciPath, AddressesAsSysfsNamesThem) {
  EXPECT_TRUE(is_pci_address("0000:15:01.0"));
  EXPECT_TRUE(is_pci_address("10000:e0:06.7"));  // a VMD domain
  EXPECT_FALSE(is_pci_address("0000:15:01.8"));
  EXPECT_FALSE(is_pci_address("000:15:01.0"));
  EXPECT_FALSE(is_pci_address("0000:15:01"));
  EXPECT_FALSE(is_pci_address("pci0000:15"));
  EXPECT_FALSE(is_pci_address("0000:1g:01.0"));
  EXPECT_FALSE(is_pci_address("../../etc"));
}

TEST(PciPath, BridgesFromTheRootPortDown) {
  auto b =
      bridges_in_path("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:19:00.0",
                      "0000:19:00.0");
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 3u);
  EXPECT_EQ((*b)[0], (PciBridgeDir{"0000:15:01.0", "/sys/devices/pci0000:15/0000:15:01.0"}));
  EXPECT_EQ((*b)[2].dir, "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0");
  // On the host bridge itself (a VM's flat bus): no bridge, known.
  auto none = bridges_in_path("/sys/devices/pci0000:00/0000:00:05.0", "0000:00:05.0");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  // Hyper-V's host bridge sits under VMBus: the last pciDDDD:BB counts.
  auto hv = bridges_in_path(
      "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/"
      "47505500-0001-0000-3130-444531303244/pci0001:00/0001:00:00.0",
      "0001:00:00.0");
  ASSERT_TRUE(hv);
  EXPECT_TRUE(hv->empty());
}

TEST(PciPath, OtherPathsKnowNoBridges) {
  EXPECT_FALSE(bridges_in_path("/sys/bus/pci/devices/0000:19:00.0", "0000:19:00.0"));
  EXPECT_FALSE(
      bridges_in_path("/sys/devices/pci0000:15/0000:15:01.0/0000:19:00.0", "0000:1a:00.0"));
  EXPECT_FALSE(bridges_in_path("/sys/devices/pci0000:15/virtual/0000:19:00.0", "0000:19:00.0"));
  EXPECT_FALSE(bridges_in_path("/etc/pci0000:15/0000:19:00.0", "0000:19:00.0"));
  EXPECT_FALSE(bridges_in_path("/sys/devices/0000:19:00.0", "0000:19:00.0"));
  std::string deep = "/sys/devices/pci0000:00";
  for (int i = 0; i < 20; ++i) deep += "/0000:00:01.0";
  EXPECT_FALSE(bridges_in_path(deep + "/0000:19:00.0", "0000:19:00.0"));
}

TEST(PciPath, FollowsTheDeviceLinkInsideTheRoot) {
  TempTree t;
  t.write("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:19:00.0/vendor", "0x10de\n");
  t.symlink("../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:19:00.0",
            "/sys/bus/pci/devices/0000:19:00.0");
  auto b = read_upstream_bridges(t.root(), "0000:19:00.0");
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].bus_id, "0000:15:01.0");
  EXPECT_EQ((*b)[1].bus_id, "0000:16:00.0");
}

TEST(PciPath, PlainFoldersLoopsAndEscapesKnowNoBridges) {
  TempTree t;
  t.write("/sys/bus/pci/devices/0000:19:00.0/vendor", "0x10de\n");  // a plain folder
  EXPECT_FALSE(read_upstream_bridges(t.root(), "0000:19:00.0"));
  t.symlink("0000:1a:00.0", "/sys/bus/pci/devices/0000:1b:00.0");  // a loop
  t.symlink("0000:1b:00.0", "/sys/bus/pci/devices/0000:1a:00.0");
  EXPECT_FALSE(read_upstream_bridges(t.root(), "0000:1a:00.0"));
  // A link climbing out of the root stays inside it: nothing there.
  t.symlink("../../../../../../../../sys/devices/pci0000:00/0000:00:01.0/0000:1c:00.0",
            "/sys/bus/pci/devices/0000:1c:00.0");
  EXPECT_FALSE(read_upstream_bridges(t.root(), "0000:1c:00.0"));
  t.symlink("/nowhere", "/sys/bus/pci/devices/0000:1d:00.0");  // dangling
  EXPECT_FALSE(read_upstream_bridges(t.root(), "0000:1d:00.0"));
  EXPECT_FALSE(read_upstream_bridges(t.root(), "../0000:1d:00.0"));
}

TEST(PciPath, AnAbsoluteLinkStartsAtTheRoot) {
  TempTree t;
  t.write("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x10de\n");
  t.symlink("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
            "/sys/bus/pci/devices/0000:01:00.0");
  auto b = read_upstream_bridges(t.root(), "0000:01:00.0");
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].dir, "/sys/devices/pci0000:00/0000:00:01.0");
}

}  // namespace pci_path_test
}  // namespace gt
