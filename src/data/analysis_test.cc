#include "data/analysis.h"

#include <gtest/gtest.h>

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

std::vector<int64_t> indices(const std::vector<SampleKey>& keys) {
  std::vector<int64_t> out;
  for (const SampleKey& k : keys) out.push_back(k.index);
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
  EXPECT_EQ(r.missing[0].text(), "0/1");
  EXPECT_EQ(r.missing[1].text(), "1/0");
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

}  // namespace
}  // namespace gt
