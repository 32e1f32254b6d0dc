#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"

namespace gt {
namespace pcie_aer_checks_test {

constexpr const char* kBoot = "00bcba97-c709-4fa8-8cc5-d1cf2a389057";
constexpr int64_t kNow = 1767229200;  // 2026-01-01 01:00 UTC

AerCounter counted(uint64_t total, std::vector<AerErrorCount> errors = {}) {
  return {total, std::move(errors)};
}

AerCounters clean() { return {counted(0), counted(0), counted(0), {}, {}, {}, {}}; }

/// healthy_node with GPUs 2 and 3 (0000:1b/1c:00.0) below root port
/// 0000:15:01.0 and switch port 0000:16:00.0, the others below their own.
Report aer_node() {
  Report r = healthy_node();
  NodeSnapshot& s = r.snapshot;
  s.collected_at_unix_ms = kNow * 1000;
  for (size_t i = 0; i < s.pci_devices.size(); ++i) {
    PciDevice& d = s.pci_devices[i];
    d.aer = clean();
    if (i == 2 || i == 3)
      d.upstream_bridges = {"0000:15:01.0", "0000:16:00.0"};
    else
      d.upstream_bridges = {"0000:8" + std::to_string(i) + ":01.0"};
  }
  s.pcie_bridges.push_back({"0000:15:01.0", true, clean()});
  s.pcie_bridges.back().aer.rootport_correctable = 0;
  s.pcie_bridges.back().aer.rootport_nonfatal = 0;
  s.pcie_bridges.back().aer.rootport_fatal = 0;
  s.pcie_bridges.push_back({"0000:16:00.0", false, clean()});
  return r;
}

PcieBridge& bridge(Report& r, const std::string& bus) {
  for (PcieBridge& b : r.snapshot.pcie_bridges)
    if (b.bus_id == bus) return b;
  throw std::runtime_error("no bridge " + bus);
}

std::vector<Finding> judge_aer(const Report& r) {
  std::vector<Finding> out;
  check_pcie_aer(r.snapshot, out);
  return out;
}

void with_record(Report& r, const std::string& bus, AerTotals t, int64_t at,
                 const std::string& boot = kBoot) {
  if (!r.snapshot.history) {
    r.snapshot.history = GpuHistory{};
    r.snapshot.history->boot_id = kBoot;
  }
  r.snapshot.history->aer.push_back({bus, boot, at, t});
}

TEST(PcieAerChecks, ACleanNodeAndANodeWithoutAerSayNothing) {
  EXPECT_TRUE(judge_aer(aer_node()).empty());
  EXPECT_TRUE(judge_aer(healthy_node()).empty());  // no file read: a VM
  // A stable non-zero correctable count alone is no finding.
  Report r = aer_node();
  r.snapshot.pci_devices[0].aer.correctable = counted(40, {{"RxErr", 40}});
  EXPECT_TRUE(judge_aer(r).empty());
}

TEST(PcieAerChecks, AFatalErrorOnARootPortNamesItAndTheGpusBelow) {
  Report r = aer_node();
  bridge(r, "0000:15:01.0").aer.fatal = counted(1, {{"SDES", 1}});
  bridge(r, "0000:15:01.0").aer.rootport_fatal = 1;
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "pcie.aer_fatal");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].subject.kind, "pcie-bridge");
  EXPECT_EQ(f[0].subject.pci_bus_id, "0000:15:01.0");
  EXPECT_EQ(f[0].title,
            "Root port 0000:15:01.0 above GPU 2 (0000:1b:00.0) and GPU 3 (0000:1c:00.0): 1 "
            "fatal PCIe error (AER) since boot");
  EXPECT_NE(f[0].evidence.find("TOTAL_ERR_FATAL 1 in aer_dev_fatal (SDES 1)"), std::string::npos);
  EXPECT_NE(f[0].action.find("reseat"), std::string::npos);
  EXPECT_EQ(f[0].commands.back(), "sudo lspci -vvv -s 0000:15:01.0");
}

TEST(PcieAerChecks, OnTheGpuItselfTheFindingIsTheGpus) {
  Report r = aer_node();
  r.snapshot.pci_devices[5].aer.nonfatal = counted(2, {{"CmpltTO", 2}});
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "pcie.aer_nonfatal");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].subject.kind, "gpu");
  EXPECT_EQ(f[0].subject.gpu_index, 5u);
  EXPECT_EQ(f[0].title,
            "GPU 5 (0000:1e:00.0): 2 non-fatal uncorrectable PCIe errors (AER) since boot");
  // A GPU NVML does not know is named by its bus id.
  r.snapshot.gpus.erase(r.snapshot.gpus.begin() + 5);
  f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject.pci_bus_id, "0000:1e:00.0");
  EXPECT_FALSE(f[0].subject.gpu_index);
  EXPECT_TRUE(f[0].title.starts_with("The GPU at 0000:1e:00.0: "));
}

TEST(PcieAerChecks, ARootPortsReceivedCountIsUsedOnlyWhereNothingBelowCountedIt) {
  Report r = aer_node();
  PcieBridge& rp = bridge(r, "0000:15:01.0");
  rp.aer.rootport_fatal = 1;
  r.snapshot.pci_devices[3].aer.fatal = counted(1, {{"MalfTLP", 1}});
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);  // the GPU's own: one error, one finding
  EXPECT_EQ(f[0].subject.gpu_index, 3u);
  r.snapshot.pci_devices[3].aer.fatal = counted(0);
  f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject.pci_bus_id, "0000:15:01.0");
  EXPECT_NE(f[0].evidence.find("aer_rootport_total_err_fatal 1"), std::string::npos);
  // Received from below and counted at the switch port: the port's finding.
  bridge(r, "0000:16:00.0").aer.fatal = counted(1);
  f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject.pci_bus_id, "0000:16:00.0");
  EXPECT_TRUE(f[0].title.starts_with("PCIe bridge 0000:16:00.0 above GPU 2"));
}

TEST(PcieAerChecks, UnknownCountersClaimNothing) {
  Report r = aer_node();
  PcieBridge& rp = bridge(r, "0000:15:01.0");
  rp.aer = {};
  rp.aer.rootport_fatal = std::nullopt;
  r.snapshot.pci_devices[2].aer = {};
  EXPECT_TRUE(judge_aer(r).empty());
}

TEST(PcieAerChecks, FatalGrowthSinceTheLastRunIsSaidWithTheDelta) {
  Report r = aer_node();
  bridge(r, "0000:15:01.0").aer.fatal = counted(2);
  with_record(r, "0000:15:01.0", {0, 0, 1}, kNow - 600);
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("1 new since the last run at 2026-01-01 00:50 UTC"),
            std::string::npos)
      << f[0].evidence;
}

TEST(PcieAerChecks, CorrectableErrorsGrowingFastSinceTheLastRunAreAWarning) {
  Report r = aer_node();
  r.snapshot.pci_devices[1].aer.correctable = counted(1250, {{"BadTLP", 1250}});
  with_record(r, "0000:1a:00.0", {50, 0, 0}, kNow - 600);  // 1200 in 10 min: 120/min
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "pcie.aer_correctable_growing");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].subject.gpu_index, 1u);
  EXPECT_EQ(f[0].title,
            "GPU 1 (0000:1a:00.0): PCIe correctable errors (AER) growing: 1200 new since the "
            "last run at 2026-01-01 00:50 UTC (120 a minute)");
  EXPECT_NE(f[0].evidence.find("BadTLP 1250"), std::string::npos);
}

TEST(PcieAerChecks, SlowOrFewCorrectableErrorsAreNoFinding) {
  Report r = aer_node();
  r.snapshot.pci_devices[1].aer.correctable = counted(150);
  with_record(r, "0000:1a:00.0", {50, 0, 0}, kNow - 86400);  // 100 in a day
  EXPECT_TRUE(judge_aer(r).empty());
  r.snapshot.history->aer[0].read_unix_s = kNow - 2;
  r.snapshot.pci_devices[1].aer.correctable = counted(59);  // 9 in 2 s: under the floor
  EXPECT_TRUE(judge_aer(r).empty());
  r.snapshot.pci_devices[1].aer.correctable = counted(60);  // 10 in 2 s
  EXPECT_EQ(judge_aer(r).size(), 1u);
}

TEST(PcieAerChecks, ACountThatWentDownWasResetNotNegative) {
  Report r = aer_node();
  r.snapshot.pci_devices[1].aer.correctable = counted(30);
  with_record(r, "0000:1a:00.0", {5000, 0, 0}, kNow - 60);
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);  // 30 since the reset, within a minute
  EXPECT_NE(f[0].title.find("30 new since the last run"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].evidence.find("went down from 5000"), std::string::npos);
  r.snapshot.pci_devices[1].aer.correctable = counted(3);
  EXPECT_TRUE(judge_aer(r).empty());
}

TEST(PcieAerChecks, AfterARebootEveryCountIsSinceTheBoot) {
  Report r = aer_node();
  r.snapshot.incident = Incident{};
  r.snapshot.incident->boot_time_unix_s = kNow - 3600;
  r.snapshot.pci_devices[1].aer.correctable = counted(400);  // 400 in the hour since boot
  with_record(r, "0000:1a:00.0", {9000, 0, 0}, kNow - 86400, "another-boot");
  EXPECT_TRUE(judge_aer(r).empty());  // under 8 a minute
  r.snapshot.pci_devices[1].aer.correctable = counted(1000);
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].title.find("1000 since the last run"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].title.find("rebooted since"), std::string::npos);
}

TEST(PcieAerChecks, CorrectableGrowthDuringTheSampleWindow) {
  Report r = aer_node();
  PcieBridge& sw = bridge(r, "0000:16:00.0");
  sw.aer.correctable = counted(520);
  sw.aer.at_window_start = AerTotals{500, 0, 0};
  std::vector<Finding> f = judge_aer(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "pcie.aer_correctable_growing");
  EXPECT_EQ(f[0].subject.pci_bus_id, "0000:16:00.0");
  EXPECT_NE(f[0].title.find("20 new during the 1.0 s sample window"), std::string::npos)
      << f[0].title;
  sw.aer.at_window_start = AerTotals{515, 0, 0};  // 5: under the floor
  EXPECT_TRUE(judge_aer(r).empty());
  sw.aer.at_window_start = AerTotals{600, 0, 0};  // went down: no growth claimed
  EXPECT_TRUE(judge_aer(r).empty());
}

TEST(PcieAerChecks, EveryIdIsCatalogued) {
  Report r = aer_node();
  bridge(r, "0000:15:01.0").aer.fatal = counted(1);
  r.snapshot.pci_devices[0].aer.nonfatal = counted(1);
  r.snapshot.pci_devices[1].aer.correctable = counted(500);
  r.snapshot.pci_devices[1].aer.at_window_start = AerTotals{0, 0, 0};
  std::vector<std::string> ids;
  for (const Finding& f : judge_aer(r)) ids.push_back(f.id);
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_TRUE(uncatalogued(ids).empty());
}

}  // namespace pcie_aer_checks_test
}  // namespace gt
