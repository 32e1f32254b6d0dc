#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_node.h"
#include "history/record.h"

namespace gt {
namespace history_checks_test {

/// GPU 2 logs Xid 79 in the current boot `boot`; the record holds `before`.
Report node_with_xid79(const std::vector<std::string>& before, const std::string& boot) {
  Report r = healthy_node(4);
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = 79;
  e.boot = LogBoot::kCurrent;
  e.pci_bus_id = normalize_pci_bus_id(*r.snapshot.gpus[2].pci_bus_id);
  e.detail = "GPU has fallen off the bus.";
  r.snapshot.kernel_log->events = {e};
  GpuHistory h;
  h.file = "/state/history.json";
  for (size_t i = 0; i < before.size(); ++i) {
    h.boot_id = before[i];
    add_run(h, 1700000000 + static_cast<int64_t>(i) * 86400, {{"GPU-2", "gpu.xid.79"}});
  }
  h.boot_id = boot;
  r.snapshot.history = h;
  return r;
}

const Finding* find(const Report& r, const std::string& id) {
  for (const Finding& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(HistoryChecks, ThirdBootWithXid79IsAnRmaCase) {
  Report r = node_with_xid79({"aaaaaaaa-1", "bbbbbbbb-2"}, "cccccccc-3");
  judge(r, {});
  const Finding* f = find(r, "gpu.repeat_offender");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_EQ(f->subject.gpu_uuid, "GPU-2");
  EXPECT_NE(f->title.find("Xid 79 in 3 boots"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("RMA"), std::string::npos);
  EXPECT_NE(f->evidence.find("aaaaaaaa (2023-11-14"), std::string::npos) << f->evidence;
  EXPECT_NE(f->evidence.find("cccccccc (this boot)"), std::string::npos);
}

TEST(HistoryChecks, SecondBootWarnsSameBootAgainDoesNot) {
  Report r = node_with_xid79({"aaaaaaaa-1"}, "bbbbbbbb-2");
  judge(r, {});
  ASSERT_TRUE(find(r, "gpu.repeat_offender"));
  EXPECT_EQ(find(r, "gpu.repeat_offender")->severity, Severity::kWarning);
  Report again = node_with_xid79({"aaaaaaaa-1"}, "aaaaaaaa-1");
  judge(again, {});
  EXPECT_FALSE(find(again, "gpu.repeat_offender"));
}

TEST(HistoryChecks, NoRecordNoEscalation) {
  Report r = node_with_xid79({"a", "b"}, "c");
  r.snapshot.history.reset();
  judge(r, {});
  EXPECT_FALSE(find(r, "gpu.repeat_offender"));
}

}  // namespace history_checks_test
}  // namespace gt
