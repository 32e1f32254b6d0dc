#include "watch/watch_model.h"

#include <gtest/gtest.h>

#include <sstream>

#include "render/golden.h"
#include "render/test_snapshot.h"
#include "watch/log_render.h"
#include "watch/screen.h"

namespace gt {
namespace watch_model_test {

constexpr int64_t kT0 = 1764585600000;  // 2025-12-01T10:40:00Z

Finding finding(const std::string& id, uint32_t gpu, const std::string& evidence = "") {
  Finding f;
  f.id = id;
  f.severity = Severity::kCritical;
  f.subject.kind = "gpu";
  f.subject.gpu_index = gpu;
  f.title = id + " on GPU " + std::to_string(gpu);
  f.evidence = evidence;
  return f;
}

TEST(WatchChanges, RaisedAndClearedByIdAndSubjectNotEvidence) {
  std::vector<Finding> before = {finding("gpu.lost", 1, "a"), finding("gpu.xid.79", 1)};
  std::vector<Finding> now = {finding("gpu.lost", 1, "b: numbers moved"),
                              finding("gpu.unresponsive", 5)};
  std::vector<Change> c = diff_findings(before, now, kT0);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, ChangeKind::kFindingRaised);
  EXPECT_EQ(c[0].id, "gpu.unresponsive");
  EXPECT_EQ(c[0].gpu_index, 5u);
  EXPECT_EQ(c[1].kind, ChangeKind::kFindingCleared);
  EXPECT_EQ(c[1].id, "gpu.xid.79");
}

TEST(WatchChanges, DuplicateFindingsAreOneChange) {
  std::vector<Finding> now = {finding("gpu.lost", 1), finding("gpu.lost", 1)};
  EXPECT_EQ(diff_findings({}, now, kT0).size(), 1u);
  EXPECT_TRUE(diff_findings(now, now, kT0).empty());
}

TEST(WatchHistory, RingKeepsTheNewestAndUnknownsAsGaps) {
  Series s;
  for (int i = 0; i < 300; ++i) s.push(i);
  s.push(std::nullopt);
  EXPECT_EQ(s.size(), kHistoryPoints);
  auto last = s.last(3);
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[0], 298);
  EXPECT_EQ(last[1], 299);
  EXPECT_FALSE(last[2].has_value());
  EXPECT_FALSE(s.latest().has_value());
  EXPECT_EQ(sparkline({0.0, 50.0, 100.0, std::nullopt, 250.0}, 100), "▁▄█ █");
}

Report busy_report(double util) {
  Report r = make_test_report();
  for (GpuState& g : r.snapshot.gpus)
    if (g.status == GpuStatus::kOk) g.utilization_gpu_pct = SampleStats{util, util, util, 5};
  return r;
}

TEST(WatchModel, FirstTickIsTheStartThenServerIdleOnceAndBusyAgain) {
  WatchModel m;
  std::vector<Change> c = m.apply(busy_report(90), kT0);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kStarted);
  std::vector<std::string> idle;  // each of the two servers on GPU 0, once
  for (int k = 1; k <= WatchModel::kIdleTicks + 3; ++k)
    for (const Change& x : m.apply(busy_report(0), kT0 + 1000 * k)) {
      ASSERT_EQ(x.kind, ChangeKind::kServerIdle);
      EXPECT_EQ(k, WatchModel::kIdleTicks);
      idle.push_back(*x.server);
    }
  EXPECT_EQ(idle, (std::vector<std::string>{"SGLang pid-3141 (TP 1, GPU 0)",
                                            "PID 88123 pid-88123 (GPU 0)"}));
  std::vector<Change> back = m.apply(busy_report(50), kT0 + 10000);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].kind, ChangeKind::kServerBusy);
}

TEST(WatchModel, NewFindingsAreThoseNotInTheFirstTick) {
  WatchModel m;
  Report first = busy_report(90);
  m.apply(first, kT0);
  Report second = first;
  second.findings.push_back(finding("gpu.xid.31", 0));
  std::vector<Change> c = m.apply(second, kT0 + 2000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kFindingRaised);
  EXPECT_EQ(*c[0].server, "SGLang pid-3141 (TP 1, GPU 0) + PID 88123 pid-88123 (GPU 0)")
      << "attributed by its GPU";
  EXPECT_TRUE(m.is_new(second.findings.back()));
  EXPECT_FALSE(m.is_new(first.findings.front()));
}

TEST(WatchLog, LineAndJsonGolden) {
  Change c;
  c.time_unix_ms = kT0 + 5000;
  c.kind = ChangeKind::kEvent;
  c.severity = Severity::kCritical;
  c.id = "gpu.xid.79";
  c.gpu_index = 3;
  c.pci_bus_id = "00000000:5D:00.0";
  c.server = "SGLang pid-3141 (TP 8, GPUs 0-7)";
  c.text = "Xid 79 (GPU has fallen off the bus) (kernel log)";
  Change note;
  note.time_unix_ms = kT0;
  note.kind = ChangeKind::kNote;
  note.text = "events: kernel log (/dev/kmsg) only \xff";
  std::ostringstream lines, json;
  for (const Change& x : {c, note}) {
    render_change_line(x, lines);
    render_change_json(x, json);
  }
  expect_golden("watch_log.txt", lines.str());
  expect_golden("watch_log.jsonl", json.str());
}

TEST(WatchScreen, FitColumnsCountsCodePoints) {
  EXPECT_EQ(fit_columns("abc", 3), "abc");
  EXPECT_EQ(fit_columns("abcd", 3), "ab…");
  EXPECT_EQ(fit_columns("▁▂▃▄", 4), "▁▂▃▄");
  EXPECT_EQ(fit_columns("▁▂▃▄", 3), "▁▂…");
}

std::string screen_text(const WatchModel& m, ScreenView view, int width) {
  ScreenContext ctx;
  ctx.view = view;
  ctx.width = width;
  ctx.height = 30;
  ctx.now_unix_ms = kT0 + 65000;
  ctx.events_source = "kernel log (/dev/kmsg) only (NVML events not supported here)";
  std::string out;
  for (const ScreenLine& l : render_screen(m, ctx)) out += l.text + "\n";
  return out;
}

TEST(WatchScreen, MainViewGoldenAt80And132Columns) {
  WatchModel m;
  for (int k = 0; k < 30; ++k) m.apply(busy_report(k * 3.0), kT0 + 2000 * k);
  Report r = busy_report(95);
  r.findings.push_back(finding("gpu.xid.31", 0));
  m.apply(r, kT0 + 62000);
  const std::string at80 = screen_text(m, ScreenView::kMain, 80);
  expect_golden("watch_screen_80.txt", at80);
  expect_golden("watch_screen_132.txt", screen_text(m, ScreenView::kMain, 132));
  expect_golden("watch_screen_findings.txt", screen_text(m, ScreenView::kFindings, 80));
  // The memory a GPU holds, beside its share (the story's 75.8 GB per GPU).
  EXPECT_NE(at80.find("74%  70.6 GiB "), std::string::npos) << at80;
  std::istringstream in(at80);
  for (std::string line; std::getline(in, line);) EXPECT_EQ(fit_columns(line, 80), line);
}

// A new bad file under --data is critical: the header says so even when the
// re-judged report is only WARNING (the trial's watch showed WARNING above
// "2 new BAD files"); without bad files it keeps the report's word.
TEST(WatchScreen, NewBadDataFilesMakeTheHeaderCritical) {
  Report r = busy_report(40);
  r.verdict = Severity::kWarning;
  for (Finding& f : r.findings)
    if (f.severity == Severity::kCritical) f.severity = Severity::kWarning;
  WatchModel m;
  m.apply(r, kT0);
  DataFollowProgress d;
  ScreenContext ctx;
  ctx.width = 120;
  ctx.height = 30;
  ctx.now_unix_ms = kT0 + 5000;
  ctx.data = &d;
  ctx.data_dir = "/data/hidden";
  const auto header = [&] { return render_screen(m, ctx).front(); };
  EXPECT_EQ(header().text.find("CRITICAL"), std::string::npos) << header().text;
  EXPECT_EQ(header().style, LineStyle::kWarning) << header().text;
  d.new_bad = 2;
  d.bad_files = {{"a.ckpt", "truncated: truncated at byte 2 of 41", kT0 + 1000},
                 {"b.ckpt", "malformed: not a zip", kT0 + 2000}};
  d.last_bad = d.bad_files.back();
  EXPECT_NE(header().text.find("CRITICAL (new bad data files)"), std::string::npos)
      << header().text;
  EXPECT_EQ(header().style, LineStyle::kCritical);
}

// --data DIR at 80 columns: the new bad file is named on a row of its own
// (not cut off the end of the pace row), the stall says why, and the `f`
// view lists both (issue 31 item 7).
TEST(WatchScreen, DataRowsNameTheBadFileAt80Columns) {
  WatchModel m;
  m.apply(busy_report(40), kT0);
  DataFollowProgress d;
  d.files = 42;
  d.new_intact = 11;
  d.new_bad = 2;
  d.per_min = 10;
  d.previous_per_min = 6;
  d.remaining = 59;
  d.eta_s = 354;
  d.bad_files = {
      {"rows_0-2000/data_36.ckpt", "truncated: truncated at byte 2000 of 4128", kT0 + 30000},
      {"rows_0-2000/data_41.ckpt",
       "checksum: record data_0/data/2: CRC32 want 0xE25228DD, got 0x5F55F8E4", kT0 + 50000}};
  d.last_bad = d.bad_files.back();
  d.stalled = true;
  d.stall_reason = "no new file for 2 min (usual interval 10 s)";
  Change stall;
  stall.time_unix_ms = kT0 + 60000;
  stall.kind = ChangeKind::kStall;
  stall.severity = Severity::kWarning;
  stall.text = "stall: " + d.stall_reason;
  d.stalls.push_back(stall);
  ScreenContext ctx;
  ctx.width = 80;
  ctx.height = 30;
  ctx.now_unix_ms = kT0 + 65000;
  ctx.events_source = "kernel log (/dev/kmsg) only";
  ctx.data = &d;
  ctx.data_dir = "/data/hidden";
  std::string main, findings;
  for (const ScreenLine& l : render_screen(m, ctx)) main += l.text + "\n";
  ctx.view = ScreenView::kFindings;
  for (const ScreenLine& l : render_screen(m, ctx)) findings += l.text + "\n";
  expect_golden("watch_screen_data_80.txt", main);
  expect_golden("watch_screen_data_findings.txt", findings);
  EXPECT_NE(main.find("  2 new BAD files, the last: rows_0-2000/data_41.ckpt: checksum"),
            std::string::npos);
  EXPECT_NE(main.find("  STALLED: no new file for 2 min"), std::string::npos);
  EXPECT_NE(findings.find(" rows_0-2000/data_36.ckpt: truncated"), std::string::npos);
  EXPECT_NE(findings.find("stall: no new file for 2 min"), std::string::npos);
  EXPECT_EQ(main.find("(s)"), std::string::npos);
}

}  // namespace watch_model_test
}  // namespace gt
