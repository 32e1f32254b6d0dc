// FixtureHost: a fixture tree's saved commands and clock; adjtimex's words.
#include "sources/incident/host.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace {

TEST(KernelClockFrom, TimeErrorOrUnsyncBitIsUnsynchronised) {
  EXPECT_TRUE(kernel_clock_from(0, 0x2001, 100).synchronised);   // TIME_OK, PLL|NANO
  EXPECT_FALSE(kernel_clock_from(5, 0, 100).synchronised);       // TIME_ERROR
  EXPECT_FALSE(kernel_clock_from(0, 0x0040, 100).synchronised);  // STA_UNSYNC
}

TEST(FixtureHost, ReplaysTheSavedCommandByExactCommandLine) {
  TempTree t;
  t.write("/.gt-fixture/commands/a.cmd", "journalctl --list-boots -o json\n");
  t.write("/.gt-fixture/commands/a.out", "[]");
  t.write("/.gt-fixture/commands/b.cmd", "timedatectl show");
  t.write("/.gt-fixture/commands/b.rc", "1");
  t.write("/.gt-fixture/commands/b.err", "Failed to connect to bus");
  t.write("/.gt-fixture/commands/c.cmd", "journalctl -b -1");
  t.write("/.gt-fixture/commands/c.rc", "timeout");
  FixtureHost h(t.root());
  const auto ms = std::chrono::milliseconds(10);
  CommandResult a = h.run({"journalctl", "--list-boots", "-o", "json"}, ms);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, "[]");
  CommandResult b = h.run({"timedatectl", "show"}, ms);
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_EQ(b.err, "Failed to connect to bus");
  EXPECT_TRUE(h.run({"journalctl", "-b", "-1"}, ms).timed_out);
  // A command the tree does not stand in for is absent, quietly: no path.
  CommandResult missing = h.run({"journalctl", "--list-boots"}, ms);
  EXPECT_TRUE(missing.absent);
  EXPECT_FALSE(missing.spawn_error);
  t.write("/.gt-fixture/commands/d.cmd", "timedatectl show -p NTP");
  t.write("/.gt-fixture/commands/d.rc", "absent");
  EXPECT_TRUE(h.run({"timedatectl", "show", "-p", "NTP"}, ms).absent);
}

TEST(FixtureHost, ClockFromTheTreeAndNothingWithoutIt) {
  TempTree t;
  FixtureHost none(t.root());
  EXPECT_FALSE(none.now_unix_s());
  EXPECT_FALSE(none.kernel_clock());
  t.write("/.gt-fixture/clock", "now_unix_s=1700000000\nadjtimex_state=5\nmaxerror_us=16000000\n");
  FixtureHost h(t.root());
  EXPECT_EQ(h.now_unix_s(), 1700000000);
  Result<KernelClock> k = h.kernel_clock();
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->synchronised);
  EXPECT_EQ(k->max_error_us, 16000000);
}

}  // namespace
}  // namespace gt
