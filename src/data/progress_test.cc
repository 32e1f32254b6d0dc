#include "data/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace gt {
namespace {

TEST(DataProgressTest, MtimesSetByACopyAreClustered) {
  // cp -r: 1,000 files within 35 s, in directory order (unrelated to the index).
  std::vector<double> copy(1000);
  std::mt19937 rng(7);
  for (double& t : copy) t = 1e9 + std::uniform_real_distribution<double>(0, 35)(rng);
  double span = 0;
  EXPECT_TRUE(mtimes_clustered(copy, span));
  EXPECT_LT(span, 35);
  // A job writes in index order over hours: not clustered.
  std::vector<double> job(1000);
  for (size_t i = 0; i < job.size(); ++i) job[i] = 1e9 + i / 1.09;
  EXPECT_FALSE(mtimes_clustered(job, span));
  // A fast job, 20 samples/s in index order: not a copy either.
  for (size_t i = 0; i < job.size(); ++i) job[i] = 1e9 + i * 0.05;
  EXPECT_FALSE(mtimes_clustered(job, span));
  // cp -r copies in inode order (= creation order): in index order, but at
  // 1,000 files/s, faster than any hidden-state pipeline writes.
  for (size_t i = 0; i < job.size(); ++i) job[i] = 1e9 + i * 0.001;
  EXPECT_TRUE(mtimes_clustered(job, span));
  // Too few files to tell.
  EXPECT_FALSE(mtimes_clustered(std::vector<double>(copy.begin(), copy.begin() + 10), span));
}

TEST(DataProgressTest, ASlowCopyInFileOrderIsACopy) {
  // A copy at 3 files/s, in path order: data_0, data_1, data_10, data_100,
  // ... (the index order differs): recognised whatever its speed.
  std::vector<std::string> names;
  for (int i = 0; i < 2000; ++i) names.push_back("data_" + std::to_string(i));
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> by_file(2000), by_index(2000);
  for (size_t k = 0; k < sorted.size(); ++k) by_file[k] = 1e9 + double(k) / 3.0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    size_t index = std::stoul(sorted[k].substr(5));
    by_index[index] = by_file[k];
  }
  EXPECT_TRUE(copied_in_another_order(by_index, by_file, {}));
  // The job writing in index order (names zero-padded or not): not a copy.
  std::vector<double> job(2000);
  for (size_t i = 0; i < job.size(); ++i) job[i] = 1e9 + double(i) / 1.09;
  EXPECT_FALSE(copied_in_another_order(job, job, {}));
}

TEST(DataProgressTest, RateIsTheJobsPaceWithoutIdleGaps) {
  // 1.09 samples/s, stopped for 40 minutes, then 10 more minutes.
  DirScan scan;
  std::vector<uint32_t> good;
  double t = 1e9;
  for (uint32_t i = 0; i < 2000; ++i) {
    ScannedFile f;
    f.rel = "data_" + std::to_string(i) + ".pt";
    t += i == 1500 ? 2400 : 1 / 1.09;
    f.mtime_unix_s = int64_t(t);
    f.mtime_nsec = uint32_t((t - double(int64_t(t))) * 1e9);
    scan.files.push_back(std::move(f));
    good.push_back(i);
  }
  DataReport r;
  r.scan = &scan;
  compute_progress(scan, good, AnalysisOptions{}, r);
  ASSERT_TRUE(r.progress.rate_samples_per_hour);
  EXPECT_NEAR(*r.progress.rate_samples_per_hour / 3600.0, 1.09, 0.02);
}

}  // namespace
}  // namespace gt
