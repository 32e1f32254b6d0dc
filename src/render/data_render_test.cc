#include "render/data_render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "render/golden.h"

namespace gt {
namespace data_render_test {

struct F {
  std::string rel;
  std::optional<ProblemCode> problem;
  int64_t mtime_unix_s;
};

// A SpecForge-shaped job of 12 samples, written one every 30 s from
// 2026-01-01 00:00 UTC: a truncated and an empty file, a gap, a stale
// temporary file, a duplicate, and the rest not started.
DirScan sample_scan() {
  DirScan scan;
  scan.dirs = {"/job/out"};
  const std::vector<F> files = {
      {"rows_0-4/data_0.ckpt", std::nullopt, 1767225600},
      {"rows_0-4/data_1.ckpt", ProblemCode::kTruncated, 1767225630},
      {"rows_0-4/data_3.ckpt", std::nullopt, 1767225690},
      {"rows_4-8/data_4.ckpt", ProblemCode::kEmpty, 1767225720},
      {"rows_4-8/data_5.ckpt", std::nullopt, 1767225750},
      {"rows_4-8/data_5.ckpt.bak", std::nullopt, 1767225751},
      {"rows_4-8/.tmpx81kq", std::nullopt, 1767225760},
  };
  for (const F& f : files) {
    ScannedFile s;
    s.rel = f.rel;
    s.size_bytes = 3 << 20;
    s.mtime_unix_s = f.mtime_unix_s;
    FileCheck c;
    if (f.problem) c.problems.push_back({*f.problem, "ends at byte 3000 of 3145728"});
    scan.record(s, std::move(c));
    scan.files.push_back(std::move(s));
  }
  return scan;
}

DataReport sample_report(const DirScan& scan) {
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}, std::make_pair(int64_t{0}, int64_t{12})};
  o.now_unix_s = 1767229200;
  o.free_bytes = uint64_t{5} << 30;
  DataReport r = analyze(scan, o);
  r.dirs = {"/job/out"};
  r.elapsed_s = 1.5;
  r.writers = {"pid 4242 (python3) has /job/out/rows_4-8/data_6.ckpt open for writing"};
  r.how_to_resume = {"rerun the job with --resume-list redo.txt"};
  r.stale_advice = "left by a writer that died: delete them once no job runs";
  r.manifest = ManifestDiff{
      {"/job/out/rows_0-4/data_0.ckpt"}, {"rows_8-12/data_8.ckpt"}, {}, {"2 lines skipped"}};
  r.moved = {{"/job/out/rows_0-4/data_1.ckpt", "/quarantine/rows_0-4/data_1.ckpt"}};
  r.errors = {"/job/out/rows_x: Permission denied"};
  ValueTotals v;
  v.files_counted = 2;
  v.files_not_counted = 1;
  v.tensors = 4;
  v.elements = 4096;
  v.nan = 3;
  v.zero_tensors = 2;
  v.files_non_finite = 1;
  v.files_all_zero = 1;
  v.allow_non_finite = true;
  ValueSummary nan_file;
  nan_file.tensors = 2;
  nan_file.nan = 3;
  ValueSummary zero_file;
  zero_file.tensors = 2;
  zero_file.zero_tensors = 2;
  zero_file.zero_tensor_names = {"hidden_state", "target"};
  v.files = {{"/job/out/rows_0-4/data_3.ckpt", nan_file},
             {"/job/out/rows_4-8/data_5.ckpt", zero_file}};
  r.values = v;
  r.exit_code = data_exit_code(r);
  return r;
}

TEST(DataRender, TextMatchesGolden) {
  DirScan scan = sample_scan();
  std::ostringstream out;
  render_data_text(sample_report(scan), out);
  expect_golden("data.txt", out.str());
}

TEST(DataRender, JsonMatchesGolden) {
  DirScan scan = sample_scan();
  std::ostringstream out;
  render_data_json(sample_report(scan), out);
  expect_golden("data.json", out.str());
  nlohmann::json d = nlohmann::json::parse(out.str());
  EXPECT_EQ(d["summary"]["bad"], 2);
  EXPECT_EQ(d["values"]["nan"], 3);
}

TEST(DataRender, NulListsTheBadPaths) {
  DirScan scan = sample_scan();
  std::ostringstream out;
  render_data_nul(sample_report(scan), out);
  EXPECT_EQ(out.str(),
            std::string("/job/out/rows_0-4/data_1.ckpt\0/job/out/rows_4-8/data_4.ckpt\0", 60));
}

// Issue 48: a sample dated 2030 on a machine whose clock says 2026 gave
// "writing stopped 2030-01-01..." as a fact; a time in the future says the
// file's time or the clock is off, and no "writing stopped".
TEST(DataRender, ASampleDatedInTheFutureIsSaidSoNeverWhenWritingStopped) {
  DirScan scan = sample_scan();
  scan.files[2].mtime_unix_s = 1893456000;  // 2030-01-01T00:00:00Z
  AnalysisOptions o{LayoutSpec{Layout::kSpecForge}};
  o.now_unix_s = 1767229200;  // 2026-01-01T01:00:00Z
  DataReport r = analyze(scan, o);
  EXPECT_FALSE(r.progress.last_write_unix_s);
  EXPECT_EQ(r.progress.future_mtime_unix_s, 1893456000);
  std::ostringstream text, json;
  render_data_text(r, text);
  EXPECT_EQ(text.str().find("; writing stopped "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("newest sample dated 2030-01-01T00:00:00Z, in the future: the "
                            "file's time or this machine's clock is off"),
            std::string::npos)
      << text.str();
  render_data_json(r, json);
  const nlohmann::json d = nlohmann::json::parse(json.str());
  EXPECT_EQ(d["progress"]["future_mtime"], "2030-01-01T00:00:00Z");
  EXPECT_TRUE(d["progress"]["last_write"].is_null());
}

}  // namespace data_render_test
}  // namespace gt
