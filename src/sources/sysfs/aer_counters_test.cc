#include "sources/sysfs/aer_counters.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/test_util.h"

namespace gt {
namespace pcie_aer_test {

// As drivers/pci/pcie/aer.c (5.x and later) prints them.
const char* kCorrectable =
    "RxErr 2\nBadTLP 0\nBadDLLP 1\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
    "HeaderOF 0\nTOTAL_ERR_COR 3\n";
const char* kFatalOne =
    "Undefined 0\nDLP 0\nSDES 1\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\n"
    "MalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\n"
    "AtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_FATAL 1\n";

TEST(PcieAer, ParsesTheKernelsFormat) {
  std::optional<AerCounter> c = parse_aer_counter(kCorrectable, "ERR_COR");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->total, 3u);
  ASSERT_EQ(c->errors.size(), 2u);  // only the lines above zero
  EXPECT_EQ(c->errors[0], (AerErrorCount{"RxErr", 2}));
  EXPECT_EQ(c->errors[1], (AerErrorCount{"BadDLLP", 1}));
  std::optional<AerCounter> f = parse_aer_counter(kFatalOne, "ERR_FATAL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->total, 1u);
  EXPECT_EQ(f->errors, (std::vector<AerErrorCount>{{"SDES", 1}}));
}

TEST(PcieAer, ParsesTheOlderLongNamesAndUnnamedBits) {
  // 4.19's aer_stats.c named errors with spaces (the ABI document's sample);
  // a bit the kernel has no name for prints as <array>_bit[N].
  std::optional<AerCounter> c = parse_aer_counter(
      "Receiver Error 2\nBad TLP 0\ndev_cor_errs_bit[3] 4\nTOTAL_ERR_COR 5\n", "ERR_COR");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->total, 5u);
  EXPECT_EQ(c->errors,
            (std::vector<AerErrorCount>{{"Receiver Error", 2}, {"dev_cor_errs_bit[3]", 4}}));
  // The total alone (a device whose named lines are all absent) is a file too.
  EXPECT_EQ(parse_aer_counter("TOTAL_ERR_NONFATAL 0\n", "ERR_NONFATAL")->total, 0u);
}

TEST(PcieAer, GarbageIsUnknownNeverZero) {
  for (const char* bad : {
           "",                                               // empty
           "RxErr 2\nBadTLP 0\n",                            // cut short: no total
           "RxErr 2\nBadTLP 0\nTOTAL_ERR_COR 3",             // no final newline
           "RxErr 2\nTOTAL_ERR_FATAL 3\n",                   // another file's total
           "RxErr x\nTOTAL_ERR_COR 3\n",                     // not a count
           "RxErr -1\nTOTAL_ERR_COR 3\n",                    // negative
           "RxErr 2\nTOTAL_ERR_COR 99999999999999999999\n",  // past 2^64
           "RxErr 2\nTOTAL_ERR_COR 3\nBadTLP 1\n",           // the total not last
           "TOTAL_ERR_COR 1\nTOTAL_ERR_COR 3\n",             // two totals
           "RxErr  2\nTOTAL_ERR_COR 3\n",                    // a name ending in a space
           "Rx\x01"
           "Err 2\nTOTAL_ERR_COR 3\n",  // a control character
           "2\nTOTAL_ERR_COR 3\n",      // no name
           "\nTOTAL_ERR_COR 3\n",       // an empty line
       })
    EXPECT_FALSE(parse_aer_counter(bad, "ERR_COR")) << bad;
  std::string many;
  for (int i = 0; i < 100; ++i) many += "E" + std::to_string(i) + " 1\n";
  EXPECT_FALSE(parse_aer_counter(many + "TOTAL_ERR_COR 1\n", "ERR_COR"));
  EXPECT_FALSE(parse_aer_counter(std::string(100, 'A') + " 1\nTOTAL_ERR_COR 1\n", "ERR_COR"));
}

TEST(PcieAer, ReadsAFunctionsFilesAbsentAsNull) {
  TempTree t;
  const std::string d = "/sys/devices/pci0000:15/0000:15:01.0";
  t.write(d + "/aer_dev_correctable", kCorrectable);
  t.write(d + "/aer_dev_fatal", kFatalOne);
  t.write(d + "/aer_dev_nonfatal", "garbage\n");
  t.write(d + "/aer_rootport_total_err_cor", "3\n");
  t.write(d + "/aer_rootport_total_err_fatal", "1\n");
  t.write(d + "/aer_rootport_total_err_nonfatal", "-4\n");
  AerCounters a = read_aer_counters(t.root(), d);
  EXPECT_EQ(a.correctable->total, 3u);
  EXPECT_EQ(a.fatal->total, 1u);
  EXPECT_FALSE(a.nonfatal);
  EXPECT_EQ(a.rootport_correctable, 3u);
  EXPECT_EQ(a.rootport_fatal, 1u);
  EXPECT_FALSE(a.rootport_nonfatal);
  AerCounters none = read_aer_counters(t.root(), "/sys/devices/pci0000:00/0000:00:02.0");
  EXPECT_FALSE(aer_read(none));
  EXPECT_EQ(none, AerCounters{});
}

TEST(PcieAer, AFolderOrFifoInPlaceOfAFileIsUnknown) {
  TempTree t;
  const std::string d = "/sys/bus/pci/devices/0000:19:00.0";
  std::filesystem::create_directories(t.path(d + "/aer_dev_fatal"));
  t.write(d + "/aer_dev_correctable", std::string(20000, '1') + " 1\nTOTAL_ERR_COR 1\n");
  ASSERT_EQ(::mkfifo(t.path(d + "/aer_dev_nonfatal").c_str(), 0644), 0);
  AerCounters a = read_aer_counters(t.root(), d);
  EXPECT_FALSE(aer_read(a));
}

void gpu(const TempTree& t, const std::string& dir, const std::string& bus) {
  t.write(dir + "/vendor", "0x10de\n");
  t.write(dir + "/class", "0x030200\n");
  t.write(dir + "/device", "0x2330\n");
  t.write(dir + "/aer_dev_correctable", "RxErr 0\nTOTAL_ERR_COR 0\n");
  t.write(dir + "/aer_dev_fatal", "SDES 0\nTOTAL_ERR_FATAL 0\n");
  t.write(dir + "/aer_dev_nonfatal", "SDES 0\nTOTAL_ERR_NONFATAL 0\n");
  const std::string rel = "../../.." + dir.substr(4);  // from /sys/bus/pci/devices
  t.symlink(rel, "/sys/bus/pci/devices/" + bus);
}

TEST(PcieAer, ReadsEachGpuAndEveryBridgeAboveItOnce) {
  TempTree t;
  const std::string rp = "/sys/devices/pci0000:15/0000:15:01.0";
  const std::string up = rp + "/0000:16:00.0";
  gpu(t, up + "/0000:17:00.0/0000:18:00.0", "0000:18:00.0");
  gpu(t, up + "/0000:17:01.0/0000:19:00.0", "0000:19:00.0");
  t.write(rp + "/aer_dev_fatal", kFatalOne);
  t.write(rp + "/aer_rootport_total_err_fatal", "1\n");
  t.write(up + "/aer_dev_correctable", kCorrectable);
  // A GPU in a plain folder (no link): its own counters, no bridges.
  t.write("/sys/bus/pci/devices/0000:3a:00.0/vendor", "0x10de\n");
  t.write("/sys/bus/pci/devices/0000:3a:00.0/class", "0x030200\n");
  t.write("/sys/bus/pci/devices/0000:3a:00.0/aer_dev_fatal", kFatalOne);
  NodeSnapshot s;
  s.pci_devices = {PciDevice{}, PciDevice{}, PciDevice{}};
  s.pci_devices[0].bus_id = "0000:18:00.0";
  s.pci_devices[1].bus_id = "0000:19:00.0";
  s.pci_devices[2].bus_id = "0000:3a:00.0";
  read_pcie_aer(t.root(), s);
  EXPECT_EQ(s.pci_devices[0].upstream_bridges,
            (std::vector<std::string>{"0000:15:01.0", "0000:16:00.0", "0000:17:00.0"}));
  EXPECT_EQ(s.pci_devices[1].upstream_bridges,
            (std::vector<std::string>{"0000:15:01.0", "0000:16:00.0", "0000:17:01.0"}));
  EXPECT_FALSE(s.pci_devices[2].upstream_bridges);
  EXPECT_EQ(s.pci_devices[2].aer.fatal->total, 1u);
  EXPECT_EQ(s.pci_devices[0].aer.fatal->total, 0u);
  ASSERT_EQ(s.pcie_bridges.size(), 4u);
  EXPECT_EQ(s.pcie_bridges[0].bus_id, "0000:15:01.0");
  EXPECT_TRUE(s.pcie_bridges[0].root_port);
  EXPECT_EQ(s.pcie_bridges[0].aer.fatal->total, 1u);
  EXPECT_EQ(s.pcie_bridges[0].aer.rootport_fatal, 1u);
  EXPECT_EQ(s.pcie_bridges[1].bus_id, "0000:16:00.0");
  EXPECT_FALSE(s.pcie_bridges[1].root_port);
  EXPECT_EQ(s.pcie_bridges[1].aer.correctable->total, 3u);
  EXPECT_FALSE(aer_read(s.pcie_bridges[2].aer));  // no AER capability: says nothing
}

TEST(PcieAer, TheWindowsStartIsTheFirstRead) {
  TempTree t;
  const std::string rp = "/sys/devices/pci0000:15/0000:15:01.0";
  gpu(t, rp + "/0000:16:00.0", "0000:16:00.0");
  t.write(rp + "/aer_dev_correctable", "RxErr 5\nTOTAL_ERR_COR 5\n");
  auto start = read_aer_window_start(t.root());
  ASSERT_EQ(start.size(), 2u);
  t.write(rp + "/aer_dev_correctable", "RxErr 50\nTOTAL_ERR_COR 50\n");
  NodeSnapshot s;
  s.pci_devices = {PciDevice{}};
  s.pci_devices[0].bus_id = "0000:16:00.0";
  read_pcie_aer(t.root(), s);
  set_aer_window_start(s, start);
  ASSERT_EQ(s.pcie_bridges.size(), 1u);
  EXPECT_EQ(s.pcie_bridges[0].aer.correctable->total, 50u);
  EXPECT_EQ(s.pcie_bridges[0].aer.at_window_start->correctable, 5u);
  EXPECT_EQ(s.pci_devices[0].aer.at_window_start->fatal, 0u);
}

TEST(PcieAer, ThisMachinesOwnSysReadsAsTheKernelWritesIt) {
  // Wherever this machine's kernel has AER files they parse (a VM has none:
  // every counter null, nothing claimed).
  FsRoot live("/");
  Result<std::vector<std::string>> entries = live.list("/sys/bus/pci/devices");
  if (!entries) GTEST_SKIP() << "no PCI sysfs here";
  for (const std::string& bus : *entries) {
    const std::string dir = "/sys/bus/pci/devices/" + bus;
    AerCounters a = read_aer_counters(live, dir);
    EXPECT_EQ(live.exists(dir + "/aer_dev_fatal"), a.fatal.has_value()) << bus;
    EXPECT_EQ(live.exists(dir + "/aer_dev_correctable"), a.correctable.has_value()) << bus;
  }
}

}  // namespace pcie_aer_test
}  // namespace gt
