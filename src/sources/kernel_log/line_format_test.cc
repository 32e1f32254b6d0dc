// Transport prefixes and timestamps (line_format.h), through the parser: each
// prefix form gives the event its monotonic and wall time as printed.
#include "sources/kernel_log/line_format.h"

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "sources/kernel_log/kernel_log_test_util.h"

namespace gt {
namespace line_format_test {

const char kXid79[] =
    "NVRM: Xid (PCI:0000:3B:00): 79, pid=1234, name=python3, GPU has fallen off the bus.";

std::string regression(const std::string& name) {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fuzz/regressions/kernel_log/" + name,
                   std::ios::binary);
  if (!in) ADD_FAILURE() << "regression file missing: kernel_log/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KernelLogParse, KmsgRecord) {
  auto got =
      parse_kernel_log_text(std::string("4,1234,5678901,-;") + kXid79 + "\n", LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.kind, EventKind::kXid);
  EXPECT_EQ(e.code, 79);
  EXPECT_EQ(e.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(e.pid, 1234u);
  EXPECT_EQ(e.process_name, "python3");
  EXPECT_EQ(e.detail, "GPU has fallen off the bus.");
  EXPECT_EQ(e.monotonic_s, 5.678901);
  EXPECT_EQ(e.time_text, "5.678901");
  EXPECT_EQ(e.boot, LogBoot::kCurrent);
}

TEST(KernelLogParse, KmsgDictionaryLinesAreSkipped) {
  auto got = parse_kernel_log_text(
      std::string("4,1,2,-;") + kXid79 + "\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n",
      LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].line.find("SUBSYSTEM"), std::string::npos);
}

TEST(KernelLogParse, KmsgMultilineRecordWithEscapedNewlines) {
  auto got = parse_kernel_log_text(
      "4,100,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) "
      "installed in this system has\\x0aNVRM: fallen off the bus and is not responding to "
      "commands.\n",
      LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].kind, EventKind::kFallenOffBus);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:b3:00.0");
  EXPECT_EQ(got.events[0].monotonic_s, 1843.308145);
}

TEST(KernelLogParse, DmesgRaw) {
  auto got = parse_kernel_log_text(std::string("[ 1234.567890] ") + kXid79, LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].monotonic_s, 1234.56789);
  EXPECT_EQ(got.events[0].time_text, "1234.567890");
  EXPECT_FALSE(got.events[0].time_unix_s.has_value());
}

TEST(KernelLogParse, DmesgCtime) {
  auto got =
      parse_kernel_log_text(std::string("[Mon Jan  6 10:00:00 2025] ") + kXid79, LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].time_text, "Mon Jan  6 10:00:00 2025");
  EXPECT_EQ(got.events[0].time_unix_s, local_unix(2025, 1, 6, 10, 0, 0));
}

TEST(KernelLogParse, JournalShortIsoWithOffset) {
  for (const char* stamp : {"2025-01-06T10:00:00+0100", "2025-01-06T10:00:00+01:00"}) {
    auto got = parse_kernel_log_text(std::string(stamp) + " gpu-node-7 kernel: " + kXid79,
                                     LogBoot::kPrevious);
    ASSERT_EQ(got.events.size(), 1u) << stamp;
    EXPECT_EQ(got.events[0].time_unix_s, 1736154000) << stamp;  // 09:00:00Z
    EXPECT_EQ(got.events[0].time_text, stamp);
    EXPECT_EQ(got.events[0].boot, LogBoot::kPrevious);
  }
}

TEST(KernelLogParse, JournalShortPreciseAndSyslogRfc3164) {
  for (const char* prefix :
       {"Jan 06 10:00:00.123456 host kernel: ", "Jan  6 10:00:00 host kernel: "}) {
    auto got = parse_kernel_log_text(std::string(prefix) + kXid79, LogBoot::kFile);
    ASSERT_EQ(got.events.size(), 1u) << prefix;
    ASSERT_TRUE(got.events[0].time_unix_s.has_value());
    time_t t = static_cast<time_t>(*got.events[0].time_unix_s);
    std::tm tm{};
    localtime_r(&t, &tm);
    EXPECT_EQ(tm.tm_mon, 0);
    EXPECT_EQ(tm.tm_mday, 6);
    EXPECT_EQ(tm.tm_hour, 10);
    EXPECT_LE(t, std::time(nullptr) + 86400);  // year inferred, never in the future
  }
}

TEST(KernelLogParse, SyslogRfc3339WithMonotonicAfterKernel) {
  auto got = parse_kernel_log_text(
      std::string("2025-01-06T10:00:00.123456+00:00 host kernel: [ 12.500000] ") + kXid79,
      LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].time_unix_s, 1736157600);
  EXPECT_EQ(got.events[0].monotonic_s, 12.5);
  EXPECT_EQ(got.events[0].time_text, "2025-01-06T10:00:00.123456+00:00");
}

TEST(KernelLogParse, LegacyBusWithoutPciPrefixAndUppercaseHex) {
  auto got = parse_kernel_log_text("NVRM: Xid (0000:AF:00): 31, Ch 00000010, engmask 00000101",
                                   LogBoot::kFile);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.events[0].pci_bus_id, "0000:af:00.0");
  EXPECT_EQ(got.events[0].code, 31);
  EXPECT_FALSE(got.events[0].pid.has_value());
  EXPECT_EQ(got.events[0].detail, "Ch 00000010, engmask 00000101");
}

TEST(KernelLogDates, ImpossibleOrHugeStampsLeaveTheEventUntimed) {
  std::vector<KernelLogEvent> lines =
      each_line(regression("huge-and-impossible-dates.log"), LogBoot::kFile);
  ASSERT_EQ(lines.size(), 15u);
  for (const KernelLogEvent& e : lines) {
    SCOPED_TRACE(e.line);
    EXPECT_EQ(e.code, 79);
    EXPECT_FALSE(e.time_unix_s);
    EXPECT_FALSE(e.monotonic_s);
  }
}

TEST(KernelLogDates, ValidStampsAroundTheEdgesStillParse) {
  std::vector<KernelLogEvent> got = each_line(
      "[Thu Feb 29 23:59:59 2024] NVRM: Xid (PCI:0000:19:00): 79, pid=1, name=a, x\n"
      "[Mon Jan  6 10:00:00 2025] NVRM: Xid (PCI:0000:19:00): 79, pid=2, name=b, x\n"
      "2024-12-31T23:59:60+00:00 host kernel: NVRM: Xid (PCI:0000:19:00): 79, pid=3, name=c, x\n"
      "[ 1843.308145] NVRM: Xid (PCI:0000:19:00): 79, pid=4, name=d, x\n",
      LogBoot::kFile);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_TRUE(got[0].time_unix_s);
  EXPECT_TRUE(got[1].time_unix_s);
  EXPECT_EQ(got[2].time_unix_s, 1735689600);  // the leap second rolls over
  EXPECT_DOUBLE_EQ(got[3].monotonic_s.value_or(0), 1843.308145);
}

}  // namespace line_format_test
}  // namespace gt
