// The kernel-log checks on folded events: counts and first/last times in the
// words, Xid 163 cancelled by 162, and Xid 13/31 on several GPUs at once.
#include <gtest/gtest.h>

#include <algorithm>

#include "checks/registry.h"
#include "checks/test_node.h"

namespace gt {
namespace kernel_log_checks_test {

KernelLogEvent xid(int code, const char* bus, double mono) {
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = code;
  e.pci_bus_id = bus;
  e.boot = LogBoot::kCurrent;
  e.monotonic_s = mono;
  e.time_text = std::to_string(static_cast<int>(mono)) + ".000000";
  e.detail = "detail of " + std::to_string(code);
  e.distinct_details = {e.detail};
  return e;
}

void fold(KernelLogEvent& e, uint64_t count, double last) {
  e.count = count;
  e.last_monotonic_s = last;
  e.last_time_text = std::to_string(static_cast<int>(last)) + ".000000";
}

std::vector<const Finding*> with_id(const Report& r, const std::string& id) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.id == id) out.push_back(&f);
  return out;
}

TEST(KernelLogChecks, AFoldedStormSaysItsCountAndFirstAndLastTime) {
  Report r = healthy_node();
  KernelLogEvent e = xid(95, "0000:19:00.0", 100);
  fold(e, 120000, 220);
  e.distinct_details = {e.detail, "Ch 00000009"};
  e.distinct_details_dropped = 3;
  r.snapshot.kernel_log->events = {e};
  judge(r, {});
  auto f = with_id(r, "gpu.xid.95");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("x120,000"), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->evidence.find("first 100.000000, last 220.000000"), std::string::npos)
      << f[0]->evidence;
  EXPECT_NE(f[0]->evidence.find("Ch 00000009 (and 3 more distinct)"), std::string::npos)
      << f[0]->evidence;
}

// MIG: the driver names the GPU instance after the bus id; the finding is
// the GPU's and says which instances.
TEST(KernelLogChecks, MigInstancesAreNamedInTheEvidence) {
  Report r = healthy_node();
  KernelLogEvent a = xid(94, "0000:19:00.0", 10);
  a.gpu_instance_id = 2;
  KernelLogEvent b = xid(94, "0000:19:00.0", 20);
  b.gpu_instance_id = 1;
  r.snapshot.kernel_log->events = {a, b};
  judge(r, {});
  auto f = with_id(r, "gpu.xid.94");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->evidence.find("; MIG GPU instances 1, 2"), std::string::npos) << f[0]->evidence;
  EXPECT_EQ(f[0]->subject.pci_bus_id, "0000:19:00.0");
}

TEST(KernelLogChecks, EventsOfOneGroupFromTwoSourcesAddUp) {
  Report r = healthy_node();
  KernelLogEvent a = xid(48, "0000:19:00.0", 10);
  fold(a, 4, 20);
  KernelLogEvent b = xid(48, "0000:19:00.0", 30);
  r.snapshot.kernel_log->events = {a, b};
  judge(r, {});
  auto f = with_id(r, "gpu.xid.48");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->title.find("x5 "), std::string::npos) << f[0]->title;
  EXPECT_NE(f[0]->evidence.find("first 10.000000, last 30.000000"), std::string::npos);
}

TEST(KernelLogChecks, Xid163CancelledBy162StandsDown) {
  Report r = healthy_node();
  KernelLogEvent disengaged = xid(163, "0000:19:00.0", 10);
  disengaged.cancelled_by_code = 162;
  KernelLogEvent other = xid(163, "0000:1a:00.0", 10);
  r.snapshot.kernel_log->events = {disengaged, other, xid(162, "0000:19:00.0", 20)};
  judge(r, {});
  auto f = with_id(r, "gpu.xid.163");
  ASSERT_EQ(f.size(), 2u);
  const Finding* c = f[0]->subject.pci_bus_id == "0000:19:00.0" ? f[0] : f[1];
  const Finding* n = c == f[0] ? f[1] : f[0];
  EXPECT_EQ(c->severity, Severity::kInfo);
  EXPECT_NE(c->title.find("cancelled by Xid 162"), std::string::npos) << c->title;
  EXPECT_EQ(n->title.find("cancelled"), std::string::npos);
}

TEST(KernelLogChecks, Xid31OnTwoGpusWithinAMinuteIsOneApplicationFault) {
  Report r = healthy_node();
  KernelLogEvent a = xid(31, "0000:19:00.0", 100);
  a.pid = 4242;
  a.process_name = "python3";
  KernelLogEvent b = xid(13, "0000:1c:00.0", 150);
  fold(b, 629, 155);
  r.snapshot.kernel_log->events = {a, b, xid(48, "0000:1d:00.0", 120)};
  judge(r, {});
  auto node = with_id(r, "kernel_log.app_fault_many_gpus");
  ASSERT_EQ(node.size(), 1u);
  EXPECT_EQ(node[0]->severity, Severity::kWarning);
  EXPECT_NE(node[0]->title.find("Xid 13/31 on 2 GPUs"), std::string::npos) << node[0]->title;
  EXPECT_NE(node[0]->title.find("pid 4242 (python3)"), std::string::npos) << node[0]->title;
  EXPECT_NE(node[0]->evidence.find("Xid 13 x629"), std::string::npos) << node[0]->evidence;
  EXPECT_EQ(node[0]->joined_ids, (std::vector<std::string>{"gpu.xid.13", "gpu.xid.31"}));
  for (const char* id : {"gpu.xid.13", "gpu.xid.31"}) {
    auto per_gpu = with_id(r, id);
    ASSERT_EQ(per_gpu.size(), 1u) << id;
    EXPECT_EQ(per_gpu[0]->severity, Severity::kInfo) << id;
  }
  EXPECT_EQ(with_id(r, "gpu.xid.48")[0]->severity, Severity::kCritical);  // not an app fault
}

TEST(KernelLogChecks, TheProcessComesFromTheXid43WhenThe13NamesNone) {
  Report r = healthy_node();
  KernelLogEvent x43 = xid(43, "0000:1a:00.0", 101);
  x43.pid = 2815167;
  x43.process_name = "pt_main_thread";
  r.snapshot.kernel_log->events = {xid(13, "0000:19:00.0", 100), xid(13, "0000:1a:00.0", 100), x43};
  judge(r, {});
  auto node = with_id(r, "kernel_log.app_fault_many_gpus");
  ASSERT_EQ(node.size(), 1u);
  EXPECT_NE(node[0]->title.find("pid 2815167 (pt_main_thread)"), std::string::npos)
      << node[0]->title;
}

TEST(KernelLogChecks, OneGpuOrFarApartKeepsThePerGpuWarnings) {
  Report r = healthy_node();
  r.snapshot.kernel_log->events = {xid(31, "0000:19:00.0", 100), xid(31, "0000:19:00.0", 120)};
  judge(r, {});
  EXPECT_TRUE(with_id(r, "kernel_log.app_fault_many_gpus").empty());
  EXPECT_EQ(with_id(r, "gpu.xid.31")[0]->severity, Severity::kWarning);

  Report far = healthy_node();
  KernelLogEvent late = xid(31, "0000:1a:00.0", 1000);
  KernelLogEvent other_boot = xid(31, "0000:1b:00.0", 100);
  other_boot.boot = LogBoot::kPrevious;
  far.snapshot.kernel_log->events = {xid(31, "0000:19:00.0", 100), late, other_boot};
  judge(far, {});
  EXPECT_TRUE(with_id(far, "kernel_log.app_fault_many_gpus").empty());
}

// The application-fault rule is the catalogue's application class (one
// column for history, correlation and this check): Xid 8 and 68 are the
// job's as much as 13 and 31; a consequence (43) is not a fault of its own.
TEST(KernelLogChecks, ApplicationClassFromTheCatalogueClustersAcrossGpus) {
  Report r = healthy_node();
  r.snapshot.kernel_log->events = {xid(8, "0000:19:00.0", 100), xid(68, "0000:1a:00.0", 110)};
  judge(r, {});
  auto node = with_id(r, "kernel_log.app_fault_many_gpus");
  ASSERT_EQ(node.size(), 1u);
  EXPECT_NE(node[0]->title.find("Xid 8/68 on 2 GPUs"), std::string::npos) << node[0]->title;
  EXPECT_EQ(node[0]->xid_codes, (std::vector<int>{8, 68}));

  Report only43 = healthy_node();
  only43.snapshot.kernel_log->events = {xid(43, "0000:19:00.0", 100), xid(43, "0000:1a:00.0", 101)};
  judge(only43, {});
  EXPECT_TRUE(with_id(only43, "kernel_log.app_fault_many_gpus").empty());
}

// A current-boot Xid the driver announced a reset for (Xid 154) stands down
// once its recovery action reads none again: the reset was done. Without
// the driver's word, whether a reset happened is unknown: it stands. The
// reset command comes from the catalogue's words, with the GPU filled in.
TEST(KernelLogChecks, AResetTheDriverConfirmsClearsACurrentBootXid) {
  Report r = healthy_node();
  const std::string bus = *r.snapshot.gpus[0].pci_bus_id;
  KernelLogEvent announce = xid(154, bus.c_str(), 101);
  announce.detail = "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)";
  r.snapshot.kernel_log->events = {xid(119, bus.c_str(), 100), announce};
  judge(r, CheckOptions{});
  auto f = with_id(r, "gpu.xid.119");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kCritical);  // recovery action not read
  EXPECT_EQ(f[0]->commands.front(), "sudo nvidia-smi -r -i 0");
  r.findings.clear();
  r.plan.clear();
  r.snapshot.gpus[0].recovery.action = RecoveryAction::kNone;
  r.snapshot.gpus[0].recovery.action_code = 0;
  judge(r, CheckOptions{});
  f = with_id(r, "gpu.xid.119");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity, Severity::kInfo);
  EXPECT_NE(f[0]->title.find("cleared by a GPU reset"), std::string::npos) << f[0]->title;
  EXPECT_TRUE(f[0]->commands.empty());
}

}  // namespace kernel_log_checks_test
}  // namespace gt
