#include "data/recent_window.h"

#include <gtest/gtest.h>

namespace gt {
namespace recent_window_test {

constexpr int64_t kWindow = 15 * 60;

// 300 samples at about 1.09/s, the last one at `end`.
std::vector<int64_t> steady(int64_t end) {
  std::vector<int64_t> out;
  for (int i = 0; i < 300; ++i) out.push_back(end - (299 - i) * 100 / 109);
  return out;
}

TEST(RecentWindowTest, TheNewestSampleAnchorsASteadyRun) {
  std::vector<RecentAnchor> a = recent_anchors(steady(1000000), kWindow, std::nullopt);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0], (RecentAnchor{AnchorKind::kNewestSample, 1000000}));
  EXPECT_TRUE(in_recent_window(1000000 - kWindow, a, kWindow));
  EXPECT_FALSE(in_recent_window(1000000 - kWindow - 1, a, kWindow));
  EXPECT_FALSE(in_recent_window(1000000 + 1, a, kWindow));  // written after writing stopped
}

TEST(RecentWindowTest, ASampleCopiedInLaterKeepsTheStopOfWriting) {
  // One good sample copied back in an hour after the job stopped: the
  // window before the real stop is still checked.
  std::vector<int64_t> m = steady(1000000);
  m[10] = 1000000 + 3600;
  std::vector<RecentAnchor> a = recent_anchors(m, kWindow, std::nullopt);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], (RecentAnchor{AnchorKind::kNewestSample, 1003600}));
  EXPECT_EQ(a[1], (RecentAnchor{AnchorKind::kWritingPaused, 1000000}));
  EXPECT_TRUE(in_recent_window(1000000 - 60, a, kWindow));
}

TEST(RecentWindowTest, OnlyTheNewestPausesAreAnchors) {
  std::vector<int64_t> m;
  for (int64_t stretch = 0; stretch < 10; ++stretch)
    for (int64_t k = 0; k < 5; ++k) m.push_back(stretch * 10000 + k * 60);
  std::vector<RecentAnchor> a = recent_anchors(m, kWindow, std::nullopt);
  ASSERT_EQ(a.size(), 1 + kMaxPauseAnchors);
  EXPECT_EQ(a[1], (RecentAnchor{AnchorKind::kWritingPaused, 80000 + 240}));
  EXPECT_EQ(a[2], (RecentAnchor{AnchorKind::kWritingPaused, 70000 + 240}));
}

TEST(RecentWindowTest, TheCrashIsAnAnchorOfItsOwn) {
  std::vector<RecentAnchor> a = recent_anchors(steady(1000000), kWindow, 500000);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], (RecentAnchor{AnchorKind::kCrash, 500000}));
  EXPECT_TRUE(in_recent_window(500000 - 10, a, kWindow));
  EXPECT_TRUE(recent_anchors({}, kWindow, std::nullopt).empty());
  EXPECT_EQ(recent_anchors({}, kWindow, 7).size(), 1u);
}

}  // namespace recent_window_test
}  // namespace gt
