// Impossible and overflowing timestamps in the kernel log: the event is kept,
// its timestamp is unknown, and no field reaches arithmetic unchecked (year
// -2147483648 used to overflow `year - 1900`). The lines are
// tests/fuzz/regressions/kernel_log/huge-and-impossible-dates.log.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sources/kernel_log/kernel_log.h"
#include "util/test_util.h"

namespace gt {
namespace {

std::string regression(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fuzz/regressions/kernel_log/" + name,
                   std::ios::binary);
  if (!in) ADD_FAILURE() << "regression file missing: kernel_log/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KernelLogDates, ImpossibleOrHugeStampsLeaveTheEventUntimed) {
  ParsedKernelLog got = parse_kernel_log_text(regression("huge-and-impossible-dates.log"), "file");
  ASSERT_EQ(got.events.size(), 15u);
  for (const KernelLogEvent& e : got.events) {
    SCOPED_TRACE(e.line);
    EXPECT_EQ(e.code, 79);
    EXPECT_FALSE(e.time_unix_s);
    EXPECT_FALSE(e.monotonic_s);
  }
}

TEST(KernelLogDates, ValidStampsAroundTheEdgesStillParse) {
  ParsedKernelLog got = parse_kernel_log_text(
      "[Thu Feb 29 23:59:59 2024] NVRM: Xid (PCI:0000:19:00): 79, pid=1, name=a, x\n"
      "[Mon Jan  6 10:00:00 2025] NVRM: Xid (PCI:0000:19:00): 79, pid=2, name=b, x\n"
      "2024-12-31T23:59:60+00:00 host kernel: NVRM: Xid (PCI:0000:19:00): 79, pid=3, name=c, x\n"
      "[ 1843.308145] NVRM: Xid (PCI:0000:19:00): 79, pid=4, name=d, x\n",
      "file");
  ASSERT_EQ(got.events.size(), 4u);
  EXPECT_TRUE(got.events[0].time_unix_s);
  EXPECT_TRUE(got.events[1].time_unix_s);
  EXPECT_EQ(got.events[2].time_unix_s, 1735689600);  // the leap second rolls over
  EXPECT_DOUBLE_EQ(got.events[3].monotonic_s.value_or(0), 1843.308145);
}

TEST(KernelLogDates, HugeBtimeGivesNoWallTimeInsteadOfOverflow) {
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 9223372036854775807\n");
  t.write("/dev/kmsg",
          "4,17,18446744073709551615,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=a, x\n"
          "4,18,1843308145,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=2, name=b, x\n");
  KernelLog log = read_kernel_log(t.root(), {});
  ASSERT_EQ(log.events.size(), 2u);
  for (const KernelLogEvent& e : log.events) EXPECT_FALSE(e.time_unix_s) << e.line;
  EXPECT_FALSE(log.events[0].monotonic_s);
  EXPECT_DOUBLE_EQ(log.events[1].monotonic_s.value_or(0), 1843.308145);
}

}  // namespace
}  // namespace gt
