// This boot from /proc: btime, boot id, uptime; what is missing is said.
#include "sources/incident/boot.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

TEST(ReadThisBoot, ReadsBtimeBootIdAndUptime) {
  TempTree t;
  t.write("/proc/stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n");
  t.write("/proc/sys/kernel/random/boot_id", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0\n");
  t.write("/proc/uptime", "3723.45 12345.67\n");
  Incident in;
  read_this_boot(t.root(), in);
  EXPECT_EQ(in.boot_time_unix_s, 1700000000);
  EXPECT_EQ(in.boot_id, "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0");
  ASSERT_TRUE(in.uptime_s);
  EXPECT_DOUBLE_EQ(*in.uptime_s, 3723.45);
  EXPECT_TRUE(in.unread.empty());
}

TEST(ReadThisBoot, MissingFilesAreNullAndSaid) {
  TempTree t;
  Incident in;
  read_this_boot(t.root(), in);
  EXPECT_FALSE(in.boot_time_unix_s);
  EXPECT_FALSE(in.boot_id);
  EXPECT_FALSE(in.uptime_s);
  EXPECT_EQ(in.unread.size(), 2u);
}

// Outside numbers are range-checked before arithmetic or a cast: an uptime
// of inf or 1e300 (cast to whole seconds later) and a btime near INT64_MAX
// (process ages are added to it) are unknown.
TEST(ReadThisBoot, UptimeAndBtimeOutOfRangeAreUnknown) {
  for (const char* up : {"inf 1\n", "1e300 1\n", "nan 1\n", "-5 1\n"}) {
    TempTree t;
    t.write("/proc/uptime", up);
    t.write("/proc/stat", "btime 9223372036854775807\n");
    Incident in;
    read_this_boot(t.root(), in);
    EXPECT_FALSE(in.uptime_s) << up;
    EXPECT_FALSE(in.boot_time_unix_s);
  }
}

}  // namespace
}  // namespace gt
