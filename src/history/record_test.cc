#include "history/record.h"

#include <gtest/gtest.h>

#include "checks/test_node.h"

namespace gt {
namespace record_test {

Finding xid(const Report& r, uint32_t gpu, int code) {
  Finding f;
  f.id = "gpu.xid." + std::to_string(code);
  f.xid_codes = {code};
  f.severity = Severity::kCritical;
  f.subject.kind = "gpu";
  f.subject.gpu_index = gpu;
  f.subject.pci_bus_id = normalize_pci_bus_id(*r.snapshot.gpus[gpu].pci_bus_id);
  return f;
}

KernelLogEvent event(const Report& r, uint32_t gpu, int code, LogBoot boot) {
  KernelLogEvent e;
  e.kind = EventKind::kXid;
  e.code = code;
  e.boot = boot;
  e.pci_bus_id = normalize_pci_bus_id(*r.snapshot.gpus[gpu].pci_bus_id);
  return e;
}

TEST(HistoryRecord, XidsOfThisAndThePreviousBootAndRecoveryActionsAreObserved) {
  Report r = healthy_node(4);
  r.snapshot.kernel_log->events = {event(r, 1, 79, LogBoot::kCurrent),
                                   event(r, 2, 48, LogBoot::kPrevious)};
  Finding lost;
  lost.id = "gpu.lost";
  lost.severity = Severity::kCritical;
  lost.subject.gpu_index = 1;
  lost.joined_ids = {"gpu.xid.79"};
  lost.xid_codes = {79};
  Finding ra;
  ra.id = "gpu.recovery_action";
  ra.severity = Severity::kCritical;
  ra.subject.gpu_uuid = "GPU-3";
  Finding info = xid(r, 1, 79);
  info.severity = Severity::kInfo;
  std::vector<Observed> o = observed_findings(r.snapshot, {lost, xid(r, 2, 48), ra, info});
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0], (Observed{"GPU-1", "gpu.xid.79"}));
  EXPECT_EQ(o[1], (Observed{"GPU-2", "gpu.xid.48", LogBoot::kPrevious}));
  EXPECT_EQ(o[2], (Observed{"GPU-3", "gpu.recovery_action"}));
}

TEST(HistoryRecord, ThePreviousBootsXidIsRecordedUnderItsIdOnce) {
  GpuHistory h;
  const std::vector<Observed> o = {{"GPU-1", "gpu.xid.79", LogBoot::kPrevious}};
  h.boot_id = "b2";
  h.previous_boot_id = "b1";
  h.previous_boot_first_unix_s = 50;
  add_run(h, 100, o);
  add_run(h, 200, o);  // a second run in the boot after: still once
  ASSERT_EQ(h.boots.size(), 2u);
  EXPECT_EQ(h.boots[0].boot_id, "b1");  // oldest first
  EXPECT_EQ(h.boots[0].first_seen_unix_s, 50);
  EXPECT_EQ(boots_with(h, "GPU-1", "gpu.xid.79", o), std::vector<std::string>{"b1"});
  // The next boot sees b2's Xid in its previous boot's log.
  h.boot_id = "b3";
  h.previous_boot_id = "b2";
  add_run(h, 300, o);
  EXPECT_EQ(boots_with(h, "GPU-1", "gpu.xid.79", o), (std::vector<std::string>{"b1", "b2"}));
  // No previous boot id: nothing recorded, never a guess.
  GpuHistory none;
  none.boot_id = "b9";
  add_run(none, 1, o);
  EXPECT_TRUE(none.gpus.empty());
}

TEST(HistoryRecord, JournalBootIdsTakeProcsDashedForm) {
  EXPECT_EQ(dashed_boot_id("5DFFEB08A27344D5AE9E2FC244BBCBC5"),
            "5dffeb08-a273-44d5-ae9e-2fc244bbcbc5");
  EXPECT_EQ(dashed_boot_id("5dffeb08-a273-44d5-ae9e-2fc244bbcbc5"),
            "5dffeb08-a273-44d5-ae9e-2fc244bbcbc5");
  EXPECT_FALSE(dashed_boot_id("not-a-boot-id"));
}

// The application class is the catalogue's, one rule for every layer: Xid 8,
// 13, 31, 43, 45, 68, 69 and 80 are the job's and never recorded for RMA.
TEST(HistoryRecord, ApplicationXidsOfTheCatalogueAreNotRecorded) {
  Report r = healthy_node(2);
  std::vector<Finding> fs;
  for (int code : {8, 13, 31, 43, 45, 68, 69, 80, 48}) {
    r.snapshot.kernel_log->events.push_back(event(r, 0, code, LogBoot::kCurrent));
    fs.push_back(xid(r, 0, code));
  }
  std::vector<Observed> o = observed_findings(r.snapshot, fs);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0], (Observed{"GPU-0", "gpu.xid.48"}));
}

// A finding's Xid codes come from the finding, not from parsing its id: a
// renamed id still records the Xid it carries.
TEST(HistoryRecord, CodesComeFromTheFindingNotItsId) {
  Report r = healthy_node(2);
  r.snapshot.kernel_log->events = {event(r, 1, 79, LogBoot::kCurrent)};
  Finding f;
  f.id = "gpu.lost";
  f.severity = Severity::kCritical;
  f.subject.gpu_index = 1;
  f.xid_codes = {79};
  std::vector<Observed> o = observed_findings(r.snapshot, {f});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0], (Observed{"GPU-1", "gpu.xid.79"}));
}

TEST(HistoryRecord, OneEntryPerBootAndFinding) {
  GpuHistory h;
  std::vector<Observed> o = {{"GPU-1", "gpu.xid.79"}};
  h.boot_id = "b1";
  add_run(h, 100, o);
  add_run(h, 200, o);  // the same boot again
  EXPECT_EQ(boots_with(h, "GPU-1", "gpu.xid.79", o), std::vector<std::string>{"b1"});
  ASSERT_EQ(h.boots.size(), 1u);
  EXPECT_EQ(h.boots[0].last_seen_unix_s, 200);
  h.boot_id = "b2";
  EXPECT_EQ(boots_with(h, "GPU-1", "gpu.xid.79", o), (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(boots_with(h, "GPU-1", "gpu.xid.79", {}), std::vector<std::string>{"b1"});
}

TEST(HistoryRecord, KeepsTheLatestBootsOnly) {
  GpuHistory h;
  for (size_t i = 0; i < kMaxHistoryBoots + 3; ++i) {
    h.boot_id = "b" + std::to_string(i);
    add_run(h, static_cast<int64_t>(i), {{"GPU-1", i < 2 ? "gpu.xid.48" : "gpu.xid.79"}});
  }
  EXPECT_EQ(h.boots.size(), kMaxHistoryBoots);
  EXPECT_EQ(h.boots.front().boot_id, "b3");
  ASSERT_EQ(h.gpus.size(), 1u);
  ASSERT_EQ(h.gpus[0].findings.size(), 1u);  // the Xid 48 boots are gone
  EXPECT_EQ(h.gpus[0].findings[0].boot_ids.size(), kMaxHistoryBoots);
}

TEST(HistoryRecord, ClearOneGpuOrAll) {
  GpuHistory h;
  h.boot_id = "b1";
  add_run(h, 1, {{"GPU-1", "gpu.xid.79"}, {"GPU-2", "gpu.xid.79"}});
  EXPECT_EQ(clear_history(h, "GPU-9"), 0u);
  EXPECT_EQ(clear_history(h, "GPU-1"), 1u);
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].uuid, "GPU-2");
  EXPECT_EQ(clear_history(h, ""), 1u);
  EXPECT_TRUE(h.boots.empty());
}

// The trim is one step over the record, not one boot at a time over every
// GPU's lists: 170,000 boots (each GPU finding in every one) come down to
// the newest kMaxHistoryBoots, and every id of a dropped boot goes.
TEST(HistoryRecord, ABigRecordIsTrimmedToTheNewestBootsInOneStep) {
  GpuHistory h;
  constexpr size_t kBoots = 170000;
  h.boots.reserve(kBoots);
  FindingBoots f{"gpu.xid.79", {}};
  for (size_t i = 0; i < kBoots; ++i) {
    h.boots.push_back({"b" + std::to_string(i), 1, 2});
    f.boot_ids.push_back("b" + std::to_string(i));
  }
  h.gpus.push_back({"GPU-1", {f}});
  h.gpus.push_back({"GPU-2", {{"gpu.xid.48", {"b0", "b1"}}}});  // only dropped boots
  h.boot_id = "b" + std::to_string(kBoots - 1);
  add_run(h, 3, {});
  ASSERT_EQ(h.boots.size(), kMaxHistoryBoots);
  EXPECT_EQ(h.boots.front().boot_id, "b" + std::to_string(kBoots - kMaxHistoryBoots));
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].findings[0].boot_ids.size(), kMaxHistoryBoots);
  EXPECT_EQ(h.gpus[0].findings[0].boot_ids.front(), h.boots.front().boot_id);
}

}  // namespace record_test
}  // namespace gt

namespace gt {

TEST(HistoryRecord, TheLatestRunsAerTotalsAreKept) {
  Report r = healthy_node(2);
  NodeSnapshot& s = r.snapshot;
  s.pci_devices[0].aer.fatal = AerCounter{0, {}};
  s.pci_devices[0].aer.correctable = AerCounter{7, {{"RxErr", 7}}};
  s.pcie_bridges = {{"0000:15:01.0", true, {}}, {"0000:16:00.0", false, {}}};
  s.pcie_bridges[0].aer.fatal = AerCounter{1, {}};
  GpuHistory h;
  record_aer(h, s, 1700000000);
  EXPECT_TRUE(h.aer.empty());  // no boot id: nothing to key the totals by
  h.boot_id = "b1";
  record_aer(h, s, 1700000000);
  ASSERT_EQ(h.aer.size(), 2u);  // the GPU and the bridge read; the others say nothing
  EXPECT_EQ(h.aer[0], (AerRecord{"0000:19:00.0", "b1", 1700000000, {7, std::nullopt, 0}}));
  EXPECT_EQ(h.aer[1].bus_id, "0000:15:01.0");
  // A run that read no AER file keeps the earlier totals.
  record_aer(h, healthy_node(2).snapshot, 1700000100);
  EXPECT_EQ(h.aer.size(), 2u);
}

}  // namespace gt
