#include "sources/sysfs/pci_devices.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace pci_devices_test {

namespace fs = std::filesystem;

struct DeviceFiles {
  std::string vendor = "0x10de";
  std::string device = "0x2330";  // H100 SXM5
  std::string pci_class = "0x030200";
  std::string cur_speed = "32.0 GT/s PCIe";
  std::string max_speed = "32.0 GT/s PCIe";
  std::string cur_width = "16";
  std::string max_width = "16";
  std::string numa = "0";
  bool driver = true;
};

// Writes one device the way sysfs shows it (files end in a newline).
void add_device(const TempTree& t, const std::string& bus_id, const DeviceFiles& f) {
  const std::string dir = "/sys/bus/pci/devices/" + bus_id + "/";
  t.write(dir + "vendor", f.vendor + "\n");
  t.write(dir + "device", f.device + "\n");
  t.write(dir + "class", f.pci_class + "\n");
  t.write(dir + "current_link_speed", f.cur_speed + "\n");
  t.write(dir + "max_link_speed", f.max_speed + "\n");
  t.write(dir + "current_link_width", f.cur_width + "\n");
  t.write(dir + "max_link_width", f.max_width + "\n");
  t.write(dir + "numa_node", f.numa + "\n");
  if (f.driver) t.symlink("../../../bus/pci/drivers/nvidia", dir + "driver");
}

std::vector<PciDevice> read_all(const TempTree& t) {
  Result<std::vector<PciDevice>> r = read_nvidia_pci_devices(t.root());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : std::vector<PciDevice>{};
}

TEST(PciDevices, ReadsAnH100) {
  TempTree t;
  add_device(t, "0000:19:00.0", DeviceFiles{});
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bus_id, "0000:19:00.0");
  EXPECT_EQ(d[0].device_id, 0x2330u);
  EXPECT_EQ(d[0].class_code, 0x030200u);
  EXPECT_EQ(d[0].driver, "nvidia");
  EXPECT_EQ(d[0].current_link_speed_gts, 32.0);
  EXPECT_EQ(d[0].max_link_speed_gts, 32.0);
  EXPECT_EQ(d[0].current_link_gen, 5u);
  EXPECT_EQ(d[0].max_link_gen, 5u);
  EXPECT_EQ(d[0].current_link_width, 16u);
  EXPECT_EQ(d[0].max_link_width, 16u);
  EXPECT_EQ(d[0].numa_node, 0u);
}

TEST(PciDevices, SkipsNonNvidiaAndNonDisplayFunctions) {
  TempTree t;
  DeviceFiles nic;
  nic.vendor = "0x15b3";  // Mellanox ConnectX
  nic.pci_class = "0x020700";
  add_device(t, "0000:18:00.0", nic);
  DeviceFiles audio;
  audio.pci_class = "0x040300";  // NVIDIA HDMI audio function
  add_device(t, "0000:19:00.1", audio);
  DeviceFiles nvswitch;
  nvswitch.pci_class = "0x068000";
  add_device(t, "0000:05:00.0", nvswitch);
  add_device(t, "0000:19:00.0", DeviceFiles{});
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bus_id, "0000:19:00.0");
}

TEST(PciDevices, NvSwitchesOfAnA100Hgx) {
  TempTree t;
  DeviceFiles nvswitch;
  nvswitch.device = "0x1af1";  // NVSwitch of an HGX A100 baseboard
  nvswitch.pci_class = "0x068000";
  for (const char* bus : {"0000:c4:00.0", "0000:c5:00.0", "0000:c6:00.0", "0000:c7:00.0",
                          "0000:c8:00.0", "0000:c9:00.0"})
    add_device(t, bus, nvswitch);
  DeviceFiles a100;
  a100.device = "0x20b2";
  add_device(t, "0000:07:00.0", a100);
  DeviceFiles other_bridge;
  other_bridge.vendor = "0x8086";
  other_bridge.pci_class = "0x068000";
  add_device(t, "0000:00:1f.0", other_bridge);
  Result<std::vector<std::string>> sw = read_nvswitches(t.root());
  ASSERT_TRUE(sw.ok());
  EXPECT_EQ(*sw, (std::vector<std::string>{"0000:c4:00.0", "0000:c5:00.0", "0000:c6:00.0",
                                           "0000:c7:00.0", "0000:c8:00.0", "0000:c9:00.0"}));
  EXPECT_EQ(read_all(t).size(), 1u);  // the GPU only
  TempTree none;
  EXPECT_TRUE(read_nvswitches(none.root())->empty());
}

TEST(PciDevices, AcceptsVgaAndDisplayOtherClasses) {
  TempTree t;
  DeviceFiles vga;
  vga.pci_class = "0x030000";
  add_device(t, "0000:01:00.0", vga);
  DeviceFiles other;
  other.pci_class = "0x038000";
  add_device(t, "0000:02:00.0", other);
  EXPECT_EQ(read_all(t).size(), 2u);
}

TEST(PciDevices, NoDriverSymlinkIsNullDriver) {
  TempTree t;
  DeviceFiles f;
  f.driver = false;
  add_device(t, "0000:19:00.0", f);
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].driver.has_value());
}

TEST(PciDevices, UnknownLinkSpeedAndZeroWidthAreNull) {
  TempTree t;
  DeviceFiles f;
  f.cur_speed = "Unknown";
  f.cur_width = "0";
  f.max_width = "255";
  add_device(t, "0000:19:00.0", f);
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].current_link_speed_gts.has_value());
  EXPECT_FALSE(d[0].current_link_gen.has_value());
  EXPECT_FALSE(d[0].current_link_width.has_value());
  EXPECT_FALSE(d[0].max_link_width.has_value());
  EXPECT_EQ(d[0].max_link_gen, 5u);
}

TEST(PciDevices, InfiniteOrHugeLinkSpeedIsNull) {
  TempTree t;
  DeviceFiles f;
  f.cur_speed = "inf GT/s PCIe";
  f.max_speed = "1e308 GT/s PCIe";
  add_device(t, "0000:19:00.0", f);
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].current_link_speed_gts.has_value());
  EXPECT_FALSE(d[0].max_link_speed_gts.has_value());
}

TEST(PciDevices, DowngradedLinkInOldKernelFormat) {
  TempTree t;
  DeviceFiles f;
  f.cur_speed = "2.5 GT/s";
  f.max_speed = "16 GT/s";
  f.cur_width = "8";
  add_device(t, "0000:19:00.0", f);
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].current_link_speed_gts, 2.5);
  EXPECT_EQ(d[0].current_link_gen, 1u);
  EXPECT_EQ(d[0].max_link_gen, 4u);
  EXPECT_EQ(d[0].current_link_width, 8u);
}

TEST(PciDevices, GarbageWidthAndMissingLinkFilesAreNull) {
  TempTree t;
  DeviceFiles f;
  f.cur_width = "x16";
  add_device(t, "0000:19:00.0", f);
  std::filesystem::remove(t.root().path("/sys/bus/pci/devices/0000:19:00.0/max_link_speed"));
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].current_link_width.has_value());
  EXPECT_FALSE(d[0].max_link_speed_gts.has_value());
  EXPECT_FALSE(d[0].max_link_gen.has_value());
}

TEST(PciDevices, NoNumaAffinityIsNull) {
  TempTree t;
  DeviceFiles f;
  f.numa = "-1";
  add_device(t, "0000:19:00.0", f);
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].numa_node.has_value());
}

TEST(PciDevices, SortedByBusId) {
  TempTree t;
  add_device(t, "0000:db:00.0", DeviceFiles{});
  add_device(t, "0000:19:00.0", DeviceFiles{});
  add_device(t, "0000:3b:00.0", DeviceFiles{});
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].bus_id, "0000:19:00.0");
  EXPECT_EQ(d[1].bus_id, "0000:3b:00.0");
  EXPECT_EQ(d[2].bus_id, "0000:db:00.0");
}

TEST(PciDevices, SymlinkedEntriesAsOnALiveNode) {
  TempTree t;
  const std::string real = "/sys/devices/pci0000:17/0000:17:00.0/0000:19:00.0";
  t.write(real + "/vendor", "0x10de\n");
  t.write(real + "/class", "0x030200\n");
  t.write(real + "/device", "0x2330\n");
  t.symlink("../../../devices/pci0000:17/0000:17:00.0/0000:19:00.0",
            "/sys/bus/pci/devices/0000:19:00.0");
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].device_id, 0x2330u);
  EXPECT_FALSE(d[0].current_link_speed_gts.has_value());
}

TEST(PciDevices, MissingSysfsDirIsEmptyNotError) {
  TempTree t;
  t.write("/proc/stat", "btime 1\n");
  Result<std::vector<PciDevice>> r = read_nvidia_pci_devices(t.root());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST(PciDevices, UnlistableDirIsAnError) {
  TempTree t;
  t.symlink("devices", "/sys/bus/pci/devices");  // a loop: ELOOP, not ENOENT
  Result<std::vector<PciDevice>> r = read_nvidia_pci_devices(t.root());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/sys/bus/pci/devices"), std::string::npos);
}

// The driver's per-GPU file names a GPU NVML has lost; a UUID it could not
// read ('?' digits) is not taken.
TEST(PciDevices, ModelAndUuidFromTheDriversInformationFile) {
  TempTree t;
  add_device(t, "0000:5d:00.0", DeviceFiles{});
  add_device(t, "0000:9b:00.0", DeviceFiles{});
  add_device(t, "0000:bb:00.0", DeviceFiles{});
  t.write("/proc/driver/nvidia/gpus/0000:5d:00.0/information",
          "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 185\n"
          "GPU UUID: \t GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98\n"
          "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\n"
          "Bus Location: \t 0000:5d:00.0\nDevice Minor: \t 3\nGPU Excluded:\t No\n");
  t.write("/proc/driver/nvidia/gpus/0000:9b:00.0/information",
          "Model: \t\t NVIDIA H100 80GB HBM3\n"
          "GPU UUID: \t GPU-" +
              std::string(8, '?') + "-" + std::string(4, '?') + "\n");
  std::vector<PciDevice> d = read_all(t);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d[0].uuid, "GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98");
  EXPECT_EQ(d[1].model, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(d[1].uuid);
  EXPECT_FALSE(d[2].model);  // no information file: nothing
  EXPECT_FALSE(d[2].uuid);
}

TEST(NormalizePciBusId, NvmlForm) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(normalize_pci_bus_id("00000000:DB:00.0"), "0000:db:00.0");
}

TEST(NormalizePciBusId, SysfsFormUnchanged) {
  EXPECT_EQ(normalize_pci_bus_id("0000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:3B:00.0\n"), "0000:3b:00.0");
}

TEST(NormalizePciBusId, WideDomainAndMissingDomain) {
  EXPECT_EQ(normalize_pci_bus_id("00010000:01:00.0"), "10000:01:00.0");
  EXPECT_EQ(normalize_pci_bus_id("19:00.0"), "0000:19:00.0");
}

}  // namespace pci_devices_test
}  // namespace gt
