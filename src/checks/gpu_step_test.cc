#include "checks/gpu_step.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

Finding finding(const char* id, Severity sev, std::vector<std::string> commands = {}) {
  Finding f;
  f.id = id;
  f.severity = sev;
  f.title = std::string("GPU 3 (0000:5d:00.0): ") + id;
  f.action = std::string("do ") + id;
  f.commands = std::move(commands);
  f.subject.pci_bus_id = "00000000:5D:00.0";
  return f;
}

TEST(GpuStep, TheStrongestRemedyLeadsAndWeakerResetsAndRebootsGo) {
  Finding lost = finding("gpu.lost", Severity::kCritical, {"nvidia-smi -q", "sudo reboot"});
  Finding rma = finding("gpu.repeat_offender", Severity::kCritical, {"sudo nvidia-bug-report.sh"});
  Finding remap = finding("ecc.remap_pending", Severity::kWarning, {"sudo nvidia-smi -r -i 3"});
  EXPECT_EQ(remedy_of(lost), Remedy::kReboot);
  EXPECT_EQ(remedy_of(rma), Remedy::kRma);
  EXPECT_EQ(remedy_of(remap), Remedy::kReset);
  PlanStep s = gpu_step({&lost, &rma, &remap});
  EXPECT_EQ(s.finding_ids,
            (std::vector<std::string>{"gpu.repeat_offender", "gpu.lost", "ecc.remap_pending"}));
  EXPECT_EQ(s.commands, (std::vector<std::string>{"sudo nvidia-bug-report.sh", "nvidia-smi -q"}));
  EXPECT_EQ(s.text.find("do gpu.repeat_offender"), s.text.find(". ") + 2) << s.text;
  EXPECT_NE(s.text.find("Also on this GPU: gpu.lost; ecc.remap_pending."), std::string::npos);
}

TEST(GpuStep, RemediesFromTheCatalogueAndTheBoot) {
  Finding x48 = finding("gpu.xid.48", Severity::kCritical);
  Finding x79 = finding("gpu.xid.79", Severity::kCritical);
  Finding x13 = finding("gpu.xid.13", Severity::kWarning);
  EXPECT_EQ(remedy_of(x48), Remedy::kReset);   // WORKFLOW_XID_48
  EXPECT_EQ(remedy_of(x79), Remedy::kReboot);  // RESTART_BM
  EXPECT_EQ(remedy_of(x13), Remedy::kWatch);   // the application's
  x79.title += " x1 in the previous boot";
  EXPECT_EQ(remedy_of(x79), Remedy::kWatch);  // a reboot has happened since
  EXPECT_TRUE(joins_per_gpu(x48));
  EXPECT_FALSE(joins_per_gpu(finding("gpu.count_mismatch", Severity::kCritical)));
  EXPECT_FALSE(joins_per_gpu(finding("persistence.off", Severity::kWarning)));
}

}  // namespace
}  // namespace gt
