#include "data/progress.h"

#include <gtest/gtest.h>

#include <random>

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

}  // namespace
}  // namespace gt
