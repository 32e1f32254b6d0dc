// Clock sanity: RTC, adjtimex through the seam, timedatectl through the runner.
#include "sources/incident/clock.h"

#include <gtest/gtest.h>

#include <limits>

#include "sources/incident/fake_host_test_util.h"
#include "sources/incident/host.h"
#include "util/test_util.h"

namespace gt {
namespace {

TEST(ReadRtc, SinceEpochElseDateAndTimeAsUtc) {
  TempTree t;
  EXPECT_FALSE(read_rtc_unix_s(t.root()));
  t.write("/sys/class/rtc/rtc0/date", "2023-11-14\n");
  t.write("/sys/class/rtc/rtc0/time", "22:13:20\n");
  EXPECT_EQ(read_rtc_unix_s(t.root()), 1700000000);
  t.write("/sys/class/rtc/rtc0/since_epoch", "1700000123\n");
  EXPECT_EQ(read_rtc_unix_s(t.root()), 1700000123);
}

TEST(ParseTimedatectl, YesNoAndUnknown) {
  ClockState c;
  parse_timedatectl("NTP=yes\nNTPSynchronized=no\n", c);
  EXPECT_EQ(c.ntp_enabled, true);
  EXPECT_EQ(c.ntp_synchronised, false);
  ClockState d;
  parse_timedatectl("NTP=maybe\n", d);
  EXPECT_FALSE(d.ntp_enabled);
}

TEST(ReadClock, OffsetAgainstRtcAndSyncState) {
  TempTree t;
  t.write("/sys/class/rtc/rtc0/since_epoch", "1699992800\n");  // 2 h behind
  FakeHost h;
  h.now = 1700000000;
  h.kernel = KernelClock{false, 16000000};
  h.answers["timedatectl show"] = FakeHost::ok("NTP=no\nNTPSynchronized=no\n");
  ClockOptions o;
  o.clock = &h;
  o.runner = &h;
  Incident in;
  read_clock(t.root(), o, in);
  EXPECT_EQ(in.clock.rtc_offset_s, 7200);
  EXPECT_EQ(in.clock.kernel_synchronised, false);
  EXPECT_EQ(in.clock.ntp_enabled, false);
  EXPECT_TRUE(in.unread.empty());
}

TEST(ReadClock, WhatCannotBeReadIsSaid) {
  TempTree t;
  FakeHost h;  // no timedatectl
  h.kernel = Error{ErrorKind::kIo, "adjtimex: Operation not permitted"};
  ClockOptions o;
  o.clock = &h;
  o.runner = &h;
  Incident in;
  read_clock(t.root(), o, in);
  EXPECT_FALSE(in.clock.rtc_offset_s);
  EXPECT_FALSE(in.clock.kernel_synchronised);
  EXPECT_EQ(in.unread.size(), 3u);  // RTC, adjtimex, timedatectl
}

// A fixture clock at INT64_MIN (or an RTC past year 9999) is no clock: the
// offset is unknown, never an overflowing subtraction.
TEST(ReadClock, ClocksOutOfRangeGiveNoOffset) {
  TempTree t;
  t.write("/sys/class/rtc/rtc0/since_epoch", "1699992800\n");
  FakeHost h;
  h.now = std::numeric_limits<int64_t>::min();
  h.kernel = KernelClock{true, 0};
  ClockOptions o;
  o.clock = &h;
  o.runner = &h;
  Incident in;
  read_clock(t.root(), o, in);
  EXPECT_FALSE(in.clock.system_unix_s);
  EXPECT_FALSE(in.clock.rtc_offset_s);
  t.write("/sys/class/rtc/rtc0/since_epoch", "9223372036854775807\n");
  h.now = 1700000000;
  Incident in2;
  read_clock(t.root(), o, in2);
  EXPECT_FALSE(in2.clock.rtc_offset_s);
}

// A fixture tree that stands in for no clock and no commands (a scenario
// without .gt-fixture/) says nothing about them: no "not read" lines.
TEST(ReadClock, AFixtureTreeWithoutAClockSaysNothing) {
  TempTree t;
  FixtureHost h(t.root());
  ClockOptions o;
  o.clock = &h;
  o.runner = &h;
  Incident in;
  read_clock(t.root(), o, in);
  EXPECT_FALSE(in.clock.kernel_synchronised);
  EXPECT_TRUE(in.unread.empty()) << in.unread.front();
}

}  // namespace
}  // namespace gt
