#include "data/analysis.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/resume_advice.h"
#include "render/data_render.h"

namespace gt {
namespace analysis_test {

struct F {
  std::string rel;
  std::optional<ProblemCode> problem;
  int64_t mtime = 1000;
  std::optional<std::string> unverifiable;
};

// Files under DIR "/d", each recorded from a check as the scan records them.
void fill(DirScan& scan, const std::vector<F>& files) {
  scan.dirs = {"/d"};
  for (const F& f : files) {
    ScannedFile s;
    s.rel = f.rel;
    s.size_bytes = 100;
    s.mtime_unix_s = f.mtime;
    FileCheck c;
    if (f.problem) c.problems.push_back({*f.problem, "damaged"});
    c.unverifiable = f.unverifiable;
    scan.record(s, std::move(c));
    scan.files.push_back(std::move(s));
  }
}

std::vector<int64_t> indices(const std::vector<KeyRun>& runs) {
  std::vector<int64_t> out;
  for_each_key(runs, UINT64_MAX, [&](const SampleKey& k) { out.push_back(k.index); });
  return out;
}

TEST(DataAnalysisTest, ResumeIsMissingPlusBadWithinTheRange) {
  DirScan scan;
  fill(scan, {F{"data_0.pt"}, F{"data_1.pt", ProblemCode::kTruncated}, F{"data_3.pt"},
              F{"data_4.pt", ProblemCode::kEmpty}, F{"data_5.pt.tmp"}, F{"data_config.json"}});
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators}, std::make_pair(int64_t{0}, int64_t{7})};
  DataReport r = analyze(scan, o);
  EXPECT_EQ(indices(r.missing), (std::vector<int64_t>{2, 5, 6}));
  EXPECT_EQ(indices(r.gaps), (std::vector<int64_t>{2}));
  EXPECT_EQ(r.not_started, (KeyRun{"", 5, 6}));
  // To redo: gaps and bad files; the not-started range is stated apart.
  EXPECT_EQ(indices(r.resume), (std::vector<int64_t>{1, 2, 4}));
  ASSERT_EQ(r.bad.size(), 2u);
  EXPECT_EQ(r.key(r.bad[0])->index, 1);
  EXPECT_EQ(r.problem(r.bad[0]), "truncated");
  EXPECT_EQ(r.problem(r.bad[1]), "empty");
  EXPECT_EQ(r.stale, (std::vector<std::string>{"/d/data_5.pt.tmp"}));
  EXPECT_EQ(r.samples, 4u);
  EXPECT_EQ(r.exit_code, ExitCode::kWarning);
  EXPECT_EQ(*r.progress.samples_remaining, 5);
}

TEST(DataAnalysisTest, WithoutARangeGapsBelowTheMaximumAreMissing) {
  DirScan scan;
  fill(scan, {F{"data_0.pt"}, F{"data_3.pt"}});
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(indices(r.missing), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(r.progress.samples_remaining);  // unknown without --expect: null, not 0
}

TEST(DataAnalysisTest, DuplicatesAndOutsideRange) {
  DirScan scan;
  fill(scan, {F{"rows_0-4/data_1.ckpt"}, F{"rows_0-4/data_1.ckpt.gz"}, F{"rows_0-4/data_0.ckpt"},
              F{"rows_8-12/data_9.ckpt"}});
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}, std::make_pair(int64_t{0}, int64_t{2})};
  DataReport r = analyze(scan, o);
  ASSERT_EQ(r.duplicates.size(), 1u);
  EXPECT_EQ(r.duplicates[0].key.index, 1);
  EXPECT_EQ(r.duplicates[0].paths.size(), 2u);
  EXPECT_EQ(r.outside_range, 1u);
  EXPECT_TRUE(r.missing.empty());
}

// A rerun redoes the bad samples it finds moved away, not every bad file:
// a damaged file that is no sample of the job is moved, never redone
// (trial of issue 51: "redoes 21 bad files" with one bad sample).
TEST(DataAnalysisTest, TheRerunRedoesTheBadSamplesNotEveryBadFile) {
  DirScan scan;
  fill(scan, {F{"rows_0-4/data_0.ckpt", ProblemCode::kTruncated}, F{"rows_0-4/data_1.ckpt"},
              F{"rows_0-4/notes.ckpt", ProblemCode::kEmpty},
              F{"rows_0-4/data_x.ckpt", ProblemCode::kEmpty}});
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}, std::make_pair(int64_t{0}, int64_t{2})};
  DataReport r = analyze(scan, o);
  ASSERT_EQ(r.bad.size(), 3u);
  std::string advice;
  for (const std::string& line : resume_advice(r, ResumeContext{})) advice += line + "\n";
  EXPECT_NE(advice.find("it redoes 1 bad file."), std::string::npos) << advice;
}

TEST(DataAnalysisTest, EagleGapsArePerWorker) {
  DirScan scan;
  fill(scan, {F{"0/data_0.ckpt"}, F{"0/data_2.ckpt"}, F{"1/data_1.ckpt"}});
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kEagle}});
  ASSERT_EQ(r.missing.size(), 2u);
  EXPECT_EQ(r.missing[0], (KeyRun{"0", 1, 1}));
  EXPECT_EQ(r.missing[1], (KeyRun{"1", 0, 0}));
}

TEST(DataAnalysisTest, ProgressRateAndCapacity) {
  DirScan scan;
  for (int i = 0; i < 10; ++i)
    fill(scan, {F{"data_" + std::to_string(i) + ".pt", std::nullopt, 10000 + 360 * i}});
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
  fill(scan, {F{"data_0.pt"}, F{"data_1.pt"}});
  EXPECT_EQ(analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}}).exit_code,
            ExitCode::kOk);
  EXPECT_EQ(analyze(DirScan{}, AnalysisOptions{}).exit_code, ExitCode::kUnknown);
}

// --expect 4294967295 used to build four billion keys (gigabytes, minutes):
// missing and resume sets are runs, and the listings are bounded.
TEST(DataAnalysisTest, AHugeRangeCostsRunsNotKeys) {
  DirScan scan;
  fill(scan, {F{"data_0.pt"}, F{"data_5.pt", ProblemCode::kTruncated}});
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators},
                    std::make_pair(int64_t{0}, int64_t{4294967295})};
  auto start = std::chrono::steady_clock::now();
  DataReport r = analyze(scan, o);
  EXPECT_EQ(r.missing, (std::vector<KeyRun>{{"", 1, 4}, {"", 6, 4294967294}}));
  EXPECT_EQ(r.missing_count, 4294967293u);
  EXPECT_EQ(r.resume, (std::vector<KeyRun>{{"", 1, 5}}));
  EXPECT_EQ(r.resume_count, 5u);
  EXPECT_EQ(r.not_started, (KeyRun{"", 6, 4294967294}));
  EXPECT_EQ(*r.progress.samples_remaining, 4294967294);
  std::ostringstream text, json;
  render_data_text(r, text);
  render_data_json(r, json);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_NE(text.str().find("resume: 5 samples to redo: 1-5"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Gaps below the highest index (4): 1-4"), std::string::npos);
  EXPECT_NE(text.str().find("Not started (4294967289): 6-4294967294"), std::string::npos);
  nlohmann::json d = nlohmann::json::parse(json.str());
  EXPECT_EQ(d["summary"]["missing"], 4294967293u);
  EXPECT_EQ(d["summary"]["resume"], 5u);
  EXPECT_EQ(d["summary"]["not_started"], 4294967289u);
  EXPECT_EQ(d["missing"].size(), kMaxListedIndices);
  EXPECT_EQ(d["missing"][4], 6);
  EXPECT_EQ(d["missing_runs"], nlohmann::json::parse(R"([{"first": 1, "last": 4},
                                                          {"first": 6, "last": 4294967294}])"));
  EXPECT_EQ(d["resume_runs"], nlohmann::json::parse(R"([{"first": 1, "last": 5}])"));
  EXPECT_EQ(d["not_started"],
            nlohmann::json::parse(R"({"first": 6, "last": 4294967294, "count": 4294967289})"));
}

TEST(DataAnalysisTest, HugeIndicesInFileNamesCostRunsToo) {
  DirScan scan;
  fill(scan, {F{"data_3.pt"}, F{"data_999999999999999999.pt"}});
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(r.missing, (std::vector<KeyRun>{{"", 4, 999999999999999998}}));
  EXPECT_EQ(r.missing_count, 999999999999999995u);
  EXPECT_EQ(r.range, std::nullopt);
}

TEST(DataAnalysisTest, UnverifiableFilesAreNeitherIntactNorBad) {
  DirScan scan;
  fill(scan, {F{"data_0.pt"},
              F{"data_1.pt", std::nullopt, 1000, "pickle byte 7: opcode 0x49 not modelled"},
              F{"data_2.pt", ProblemCode::kEmpty}});
  DataReport r = analyze(scan, AnalysisOptions{LayoutSpec{Layout::kSpeculators}});
  EXPECT_EQ(r.ok, 1u);
  ASSERT_EQ(r.unverifiable.size(), 1u);
  EXPECT_EQ(r.path(r.unverifiable[0]), "/d/data_1.pt");
  EXPECT_EQ(r.key(r.unverifiable[0])->index, 1);
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

}  // namespace analysis_test
}  // namespace gt

namespace gt {
namespace analysis_test {

// After `cp -r` every mtime is the copy's: the rate is unknown (null), not
// 3.5 million samples/h; --rate gives it.
TEST(DataAnalysisTest, ACopysMtimesGiveNoRateAndRateIsTheOperators) {
  DirScan scan;
  std::vector<F> files;
  for (int i = 0; i < 100; ++i)
    files.push_back(F{"data_" + std::to_string(i) + ".pt", std::nullopt, 5000 + (i * 37) % 30});
  fill(scan, files);
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators}, std::make_pair(int64_t{0}, int64_t{1190})};
  DataReport r = analyze(scan, o);
  EXPECT_TRUE(r.progress.mtimes_clustered);
  EXPECT_FALSE(r.progress.rate_samples_per_hour);
  EXPECT_FALSE(r.progress.time_to_finish_s);
  EXPECT_FALSE(r.progress.last_write_unix_s);
  o.rate_per_s = 1.09;
  r = analyze(scan, o);
  EXPECT_EQ(r.progress.rate_source, "--rate");
  EXPECT_NEAR(*r.progress.time_to_finish_s, 1090 / 1.09, 0.5);
  std::ostringstream text;
  render_data_text(r, text);
  EXPECT_NE(text.str().find("(a copy or restore set them)"), std::string::npos) << text.str();
}

// Files that differ from the manifest are redone like bad ones.
TEST(DataAnalysisTest, ChangedFilesJoinTheResumeSet) {
  DirScan scan;
  fill(scan, {F{"data_0.pt"}, F{"data_1.pt"}, F{"data_2.pt"}});
  AnalysisOptions o{LayoutSpec{Layout::kSpeculators}};
  o.changed = {1};
  DataReport r = analyze(scan, o);
  EXPECT_EQ(indices(r.resume), (std::vector<int64_t>{1}));
  EXPECT_EQ(r.progress.samples_done, 2u);
}

}  // namespace analysis_test
}  // namespace gt
