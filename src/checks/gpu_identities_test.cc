// Issue 12, item A: a lost GPU keeps its identity, and what every source
// says about it dying is one finding, one plan step, one reboot.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/checks.h"
#include "checks/registry.h"
#include "checks/test_node.h"

namespace gt {
namespace gpu_identities_test {

/// GPU 3 lost before NVML said who it is; its PCI device is still bound to
/// nvidia, and the driver's information file names it.
Report lost_gpu_3() {
  Report r = healthy_node();
  GpuState& g = r.snapshot.gpus[3];
  GpuState lost;
  lost.index = 3;
  lost.status = GpuStatus::kLost;
  lost.status_detail = "nvmlDeviceGetPciInfo_v3 returned NVML_ERROR_GPU_IS_LOST";
  g = lost;
  PciDevice& d = r.snapshot.pci_devices[3];
  d.device_id = 0x2330;
  d.model = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98";
  return r;
}

KernelLogEvent xid79(const std::string& bus, LogBoot boot = LogBoot::kCurrent) {
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = 79;
  e.pci_bus_id = bus;
  e.boot = boot;
  e.detail = "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
  return e;
}

size_t count_in(const std::vector<std::string>& v, const std::string& needle) {
  return std::count_if(v.begin(), v.end(),
                       [&](const std::string& c) { return c.find(needle) != std::string::npos; });
}

TEST(Identity, LostGpuTakesTheOnlyUnaccountedBusIdNameAndUuid) {
  Report r = lost_gpu_3();
  judge(r, {});
  const GpuState& g = r.snapshot.gpus[3];
  EXPECT_EQ(g.pci_bus_id, "00000000:1C:00.0");
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.uuid, "GPU-8679c8b4-8e89-5019-9711-20dcb82a3f98");
  EXPECT_EQ(g.pci_device_id, 0x233010DEu);
  ASSERT_TRUE(g.identity_derived_from);
  EXPECT_NE(g.identity_derived_from->find("from the PCI bus"), std::string::npos);
  EXPECT_NE(g.identity_derived_from->find("information"), std::string::npos);
  ASSERT_EQ(r.findings.front().id, "gpu.lost");
  EXPECT_EQ(r.findings.front().subject.pci_bus_id, "0000:1c:00.0");
  EXPECT_NE(r.findings.front().evidence.find("from the PCI bus"), std::string::npos)
      << "the evidence says how the bus id was derived";
}

TEST(Identity, NameFromAGpuWithTheSameDeviceIdWhenTheDriverFileIsMissing) {
  Report r = lost_gpu_3();
  r.snapshot.pci_devices[3].model.reset();
  r.snapshot.pci_devices[3].uuid.reset();
  r.snapshot.gpus[0].pci_device_id = 0x233010DE;
  judge(r, {});
  const GpuState& g = r.snapshot.gpus[3];
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(g.uuid);
  EXPECT_NE(g.identity_derived_from->find("name from GPU 0"), std::string::npos);
}

TEST(Identity, AmbiguousMeansNothingIsGuessed) {
  Report r = lost_gpu_3();
  GpuState lost4;
  lost4.index = 4;
  lost4.status = GpuStatus::kLost;
  r.snapshot.gpus[4] = lost4;  // two GPUs without a bus id, two unaccounted devices
  judge(r, {});
  EXPECT_FALSE(r.snapshot.gpus[3].pci_bus_id);
  EXPECT_FALSE(r.snapshot.gpus[4].pci_bus_id);
  EXPECT_FALSE(r.snapshot.gpus[3].identity_derived_from);
}

TEST(Identity, TwoUnaccountedDevicesAndOneLostGpuIsAmbiguousUnlessTheLogPicksOne) {
  Report r = lost_gpu_3();
  r.snapshot.gpus.pop_back();  // GPU 7 gone from NVML too: its device is unaccounted
  r.snapshot.gpu_count = 7;
  Report plain = r;
  judge(plain, {});
  EXPECT_FALSE(plain.snapshot.gpus[3].pci_bus_id);
  r.snapshot.kernel_log->events.push_back(xid79("0000:1c:00.0"));
  judge(r, {});
  EXPECT_EQ(r.snapshot.gpus[3].pci_bus_id, "00000000:1C:00.0");
  EXPECT_NE(r.snapshot.gpus[3].identity_derived_from->find("kernel log"), std::string::npos);
}

TEST(Identity, FromTheKernelLogAloneWhenThePciBusIsUnread) {
  Report r = lost_gpu_3();
  r.snapshot.pci_devices.clear();
  r.snapshot.kernel_log->events.push_back(xid79("0000:1c:00.0"));
  r.snapshot.kernel_log->events.push_back(
      xid79("0000:19:00.0", LogBoot::kPrevious));  // GPU 0: healthy
  judge(r, {});
  EXPECT_EQ(r.snapshot.gpus[3].pci_bus_id, "00000000:1C:00.0");
  EXPECT_NE(r.snapshot.gpus[3].identity_derived_from->find("from the kernel log"),
            std::string::npos);
}

TEST(Join, LostGpuAndItsXid79AreOneFindingOneStepOneReboot) {
  Report r = lost_gpu_3();
  KernelLogEvent fallen = xid79("0000:1c:00.0");
  fallen.kind = EventKind::kFallenOffBus;
  fallen.code.reset();
  r.snapshot.kernel_log->events = {xid79("0000:1c:00.0"), xid79("0000:1c:00.0", LogBoot::kPrevious),
                                   fallen};
  judge(r, {});
  std::vector<std::string> ids;
  for (const Finding& f : r.findings) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"gpu.lost"}));
  const Finding& f = r.findings.front();
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.joined_ids, (std::vector<std::string>{"gpu.fallen_off_bus_logged", "gpu.xid.79"}));
  EXPECT_NE(f.title.find("Xid 79"), std::string::npos) << f.title;
  EXPECT_NE(f.evidence.find("gpu.xid.79: "), std::string::npos) << f.evidence;
  ASSERT_EQ(r.plan.size(), 1u);
  EXPECT_EQ(count_in(r.plan[0].commands, "reboot"), 1u);
  EXPECT_EQ(r.plan[0].finding_ids, std::vector<std::string>{"gpu.lost"});
}

TEST(Join, MissingFromNvmlAndItsXid79AreOne) {
  Report r = healthy_node();
  r.snapshot.gpus.pop_back();
  r.snapshot.gpu_count = 7;
  r.snapshot.kernel_log->events.push_back(xid79("0000:20:00.0"));
  judge(r, {});
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [](const Finding& f) { return f.id == "gpu.missing_from_nvml"; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->joined_ids, std::vector<std::string>{"gpu.xid.79"});
  for (const Finding& f : r.findings) EXPECT_NE(f.id, "gpu.xid.79");
}

TEST(Join, OtherGpusAndOtherXidsStayApart) {
  Report r = lost_gpu_3();
  KernelLogEvent x48 = xid79("0000:1c:00.0");
  x48.code = 48;
  r.snapshot.kernel_log->events = {xid79("0000:1a:00.0"), x48};  // Xid 79 on healthy GPU 1
  judge(r, {});
  std::vector<std::string> ids;
  for (const Finding& f : r.findings) ids.push_back(f.id);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu.xid.79"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu.xid.48"), ids.end());
  EXPECT_TRUE(r.findings.front().joined_ids.empty());
}

}  // namespace gpu_identities_test
}  // namespace gt
