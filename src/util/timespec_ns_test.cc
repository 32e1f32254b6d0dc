#include "util/timespec_ns.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

struct timespec ts(int64_t s, long ns) {
  struct timespec t {};
  t.tv_sec = static_cast<time_t>(s);
  t.tv_nsec = ns;
  return t;
}

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(TimespecNs, InRangeIsExact) {
  EXPECT_EQ(timespec_ns(ts(0, 0)), 0);
  EXPECT_EQ(timespec_ns(ts(1764585600, 123456789)), 1764585600123456789);
  EXPECT_EQ(timespec_ns(ts(-1, 500000000)), -500000000);
  EXPECT_FALSE(timespec_ns_saturated(timespec_ns(ts(1764585600, 0))));
}

TEST(TimespecNs, TheEdgesOfInt64) {
  // 2262-04-11T23:47:16.854775807Z is the last representable nanosecond.
  EXPECT_EQ(timespec_ns(ts(9223372036, 854775807)), kMax);
  EXPECT_EQ(timespec_ns(ts(9223372036, 854775806)), kMax - 1);
  EXPECT_EQ(timespec_ns(ts(9223372036, 854775808)), kMax) << "one past: clamped";
  EXPECT_EQ(timespec_ns(ts(-9223372036, 0)), -9223372036000000000);
  EXPECT_EQ(timespec_ns(ts(-9223372037, 0)), kMin);
}

TEST(TimespecNs, FarFutureAndFarPastSaturate) {
  // touch -d 3000-01-01, and a year 2610 mtime whose plain product wraps to
  // a time in 2025.
  EXPECT_EQ(timespec_ns(ts(32503680000, 0)), kMax);
  EXPECT_EQ(timespec_ns(ts(1764585600 + 18446744074, 0)), kMax);
  EXPECT_EQ(timespec_ns(ts(std::numeric_limits<time_t>::max(), 999999999)), kMax);
  EXPECT_EQ(timespec_ns(ts(std::numeric_limits<time_t>::min(), 0)), kMin);
  EXPECT_TRUE(timespec_ns_saturated(kMax));
  EXPECT_TRUE(timespec_ns_saturated(kMin));
}

TEST(TimespecNs, AnOutOfRangeNsecIsClamped) {
  EXPECT_EQ(timespec_ns(ts(1, -5)), 1000000000);
  EXPECT_EQ(timespec_ns(ts(1, 2000000000)), 1999999999);
}

}  // namespace
}  // namespace gt
