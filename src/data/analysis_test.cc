#include "data/analysis.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/data_report.h"

namespace gt {
namespace {

ScannedFile file(const std::string& rel, std::optional<ProblemCode> problem = std::nullopt,
                 int64_t mtime = 1000) {
  ScannedFile f;
  f.rel = rel;
  f.path = "/d/" + rel;
  f.size_bytes = 100;
  f.mtime_unix_s = mtime;
  if (problem) f.check.problems.push_back({*problem, "damaged"});
  return f;
}

std::vector<int64_t> indices(const std::vector<KeyRun>& runs) {
  std::vector<int64_t> out;
  for_each_key(runs, UINT64_MAX, [&](const SampleKey& k) { out.push_back(k.index); });
  return out;
}

TEST(DataAnalysisTest, ResumeIsMissingPlusBadWithinTheRange) {
  DirScan scan;
  scan.files = {file("data_0.pt"),     file("data_1.pt", ProblemCode::kTruncated),
                file("data_3.pt"),     file("data_4.pt", ProblemCode::kEmpty),
                file("data_5.pt.tmp"), file("data_config.json")};
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators}, std::make_pair(int64_t{0}, int64_t{7})};
  DataReport r = analyze(scan, o);
  EXPECT_EQ(indices(r.missing), (std::vector<int64_t>{2, 5, 6}));
  EXPECT_EQ(indices(r.resume), (std::vector<int64_t>{1, 2, 4, 5, 6}));
  ASSERT_EQ(r.bad.size(), 2u);
  EXPECT_EQ(r.bad[0].key->index, 1);
  EXPECT_EQ(r.bad[0].problem, "truncated");
  EXPECT_EQ(r.bad[1].problem, "empty");
  EXPECT_EQ(r.stale, (std::vector<std::string>{"/d/data_5.pt.tmp"}));
  EXPECT_EQ(r.samples, 4u);
  EXPECT_EQ(r.exit_code, ExitCode::kWarning);
  EXPECT_EQ(*r.progress.samples_remaining, 5);
}

TEST(DataAnalysisTest, WithoutARangeGapsBelowTheMaximumAreMissing) {
  DirScan scan;
  scan.files = {file("data_0.pt"), file("data_3.pt")};
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(indices(r.missing), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(r.progress.samples_remaining);  // unknown without --expect: null, not 0
}

TEST(DataAnalysisTest, DuplicatesAndOutsideRange) {
  DirScan scan;
  scan.files = {file("rows_0-4/data_1.ckpt"), file("rows_0-4/data_1.ckpt.gz"),
                file("rows_0-4/data_0.ckpt"), file("rows_8-12/data_9.ckpt")};
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}, std::make_pair(int64_t{0}, int64_t{2})};
  DataReport r = analyze(scan, o);
  ASSERT_EQ(r.duplicates.size(), 1u);
  EXPECT_EQ(r.duplicates[0].key.index, 1);
  EXPECT_EQ(r.duplicates[0].paths.size(), 2u);
  EXPECT_EQ(r.outside_range, 1u);
  EXPECT_TRUE(r.missing.empty());
}

TEST(DataAnalysisTest, EagleGapsArePerWorker) {
  DirScan scan;
  scan.files = {file("0/data_0.ckpt"), file("0/data_2.ckpt"), file("1/data_1.ckpt")};
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kEagle}});
  ASSERT_EQ(r.missing.size(), 2u);
  EXPECT_EQ(r.missing[0], (KeyRun{"0", 1, 1}));
  EXPECT_EQ(r.missing[1], (KeyRun{"1", 0, 0}));
}

TEST(DataAnalysisTest, ProgressRateAndCapacity) {
  DirScan scan;
  for (int i = 0; i < 10; ++i)
    scan.files.push_back(file("data_" + std::to_string(i) + ".pt", std::nullopt, 10000 + 360 * i));
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators}, std::make_pair(int64_t{0}, int64_t{20}), 0,
                    uint64_t{500}};
  DataReport r = analyze(scan, o);
  EXPECT_EQ(*r.progress.last_write_unix_s, 10000 + 360 * 9);
  EXPECT_NEAR(*r.progress.rate_samples_per_hour, 10.0, 0.01);  // one per 6 minutes
  EXPECT_EQ(*r.progress.samples_remaining, 10);
  EXPECT_NEAR(*r.progress.time_to_finish_s, 3600.0, 1);
  EXPECT_EQ(*r.progress.bytes_needed, 1000u);
  EXPECT_TRUE(r.progress.capacity_short);
  EXPECT_EQ(r.exit_code, ExitCode::kWarning);
}

TEST(DataAnalysisTest, IntactIsExitZeroAndNothingIsUnknown) {
  DirScan scan;
  scan.files = {file("data_0.pt"), file("data_1.pt")};
  EXPECT_EQ(analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}}).exit_code,
            ExitCode::kOk);
  EXPECT_EQ(analyze(DirScan{}, AnalysisOptions{}).exit_code, ExitCode::kUnknown);
}

// --expect 4294967295 used to build four billion keys (gigabytes, minutes):
// missing and resume sets are runs, and the listings are bounded.
TEST(DataAnalysisTest, AHugeRangeCostsRunsNotKeys) {
  DirScan scan;
  scan.files = {file("data_0.pt"), file("data_5.pt", ProblemCode::kTruncated)};
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators},
                    std::make_pair(int64_t{0}, int64_t{4294967295})};
  auto start = std::chrono::steady_clock::now();
  DataReport r = analyze(scan, o);
  EXPECT_EQ(r.missing, (std::vector<KeyRun>{{"", 1, 4}, {"", 6, 4294967294}}));
  EXPECT_EQ(r.missing_count, 4294967293u);
  EXPECT_EQ(r.resume, (std::vector<KeyRun>{{"", 1, 4294967294}}));
  EXPECT_EQ(r.resume_count, 4294967294u);
  EXPECT_EQ(*r.progress.samples_remaining, 4294967294);
  std::ostringstream text, json;
  render_data_text(r, text);
  render_data_json(r, json);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_NE(text.str().find("resume: 4294967294 samples to redo: 1-4294967294"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("Missing (4294967293): 1-4, 6-4294967294"), std::string::npos);
  nlohmann::json d = nlohmann::json::parse(json.str());
  EXPECT_EQ(d["summary"]["missing"], 4294967293u);
  EXPECT_EQ(d["summary"]["resume"], 4294967294u);
  EXPECT_EQ(d["missing"].size(), kMaxListedIndices);
  EXPECT_EQ(d["missing"][4], 6);
  EXPECT_EQ(d["missing_runs"], nlohmann::json::parse(R"([{"first": 1, "last": 4},
                                                          {"first": 6, "last": 4294967294}])"));
  EXPECT_EQ(d["resume_runs"], nlohmann::json::parse(R"([{"first": 1, "last": 4294967294}])"));
}

TEST(DataAnalysisTest, HugeIndicesInFileNamesCostRunsToo) {
  DirScan scan;
  scan.files = {file("data_3.pt"), file("data_999999999999999999.pt")};
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(r.missing, (std::vector<KeyRun>{{"", 4, 999999999999999998}}));
  EXPECT_EQ(r.missing_count, 999999999999999995u);
  EXPECT_EQ(r.range, std::nullopt);
}

TEST(DataAnalysisTest, UnverifiableFilesAreNeitherIntactNorBad) {
  DirScan scan;
  scan.files = {file("data_0.pt"), file("data_1.pt"), file("data_2.pt", ProblemCode::kEmpty)};
  scan.files[1].check.unverifiable = "pickle byte 7: opcode 0x49 not modelled";
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(r.ok, 1u);
  ASSERT_EQ(r.unverifiable.size(), 1u);
  EXPECT_EQ(r.unverifiable[0].path, "/d/data_1.pt");
  EXPECT_EQ(r.unverifiable[0].key->index, 1);
  EXPECT_EQ(r.bad.size(), 1u);
  EXPECT_EQ(indices(r.resume), (std::vector<int64_t>{2}));  // not redone, not missing
  EXPECT_EQ(r.progress.samples_done, 1u);
  EXPECT_EQ(r.exit_code, ExitCode::kWarning);
  std::ostringstream text, json;
  render_data_text(r, text);
  EXPECT_NE(text.str().find("WARNING data: 3 files, 1 intact, 1 bad, 1 unverifiable, 0 missing"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("  /d/data_1.pt: pickle byte 7: opcode 0x49 not modelled"),
            std::string::npos);
  render_data_json(r, json);
  nlohmann::json d = nlohmann::json::parse(json.str());
  EXPECT_EQ(d["summary"]["unverifiable"], 1);
  EXPECT_EQ(d["unverifiable"], nlohmann::json::parse(R"([{"path": "/d/data_1.pt", "index": 1,
      "reason": "pickle byte 7: opcode 0x49 not modelled"}])"));
  // Only unverifiable: still not OK.
  scan.files.pop_back();
  EXPECT_EQ(analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}}).exit_code,
            ExitCode::kWarning);
}

}  // namespace
}  // namespace gt
