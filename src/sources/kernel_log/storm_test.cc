// Storm folding (storm.h): per (kind, code, bus, boot) over the whole text,
// with count, first and last times, and bounded distinct details.
#include "sources/kernel_log/storm.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sources/kernel_log/kernel_log.h"

namespace gt {
namespace storm_test {

std::string dmesg_line(double t, const std::string& bus, int code, const std::string& detail) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%12.6f] ", t);
  return std::string(stamp) + "NVRM: Xid (PCI:" + bus + "): " + std::to_string(code) +
         ", pid=7062, name=python3, " + detail + "\n";
}

const char kUncontained[] = "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No";

TEST(Storm, HundredThousandRepeatedLinesAreOneEvent) {
  std::string text = "[    1.000000] usb 1-1: new high-speed USB device\n";
  text += dmesg_line(5.0, "0000:19:00", 48, "An uncorrectable double bit error (DBE)");
  for (int i = 0; i < 100000; ++i) {
    text += dmesg_line(100.0 + i * 0.001, "0000:19:00", 95, kUncontained);
    if (i == 50000) text += dmesg_line(150.5, "0000:3b:00", 95, kUncontained);  // another GPU
  }
  text += "[  300.000000] NVRM: GPU at PCI:0000:19:00: GPU-509665ad\n";
  ParsedKernelLog got = parse_kernel_log_text(text, LogBoot::kCurrent);
  EXPECT_EQ(got.lines, 100004u);
  ASSERT_EQ(got.events.size(), 3u);
  EXPECT_EQ(got.events[0].code, 48);
  EXPECT_EQ(got.events[0].count, 1u);
  EXPECT_FALSE(got.events[0].last_monotonic_s);  // nothing folded into it
  const KernelLogEvent& storm = got.events[1];
  EXPECT_EQ(storm.code, 95);
  EXPECT_EQ(storm.pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(storm.count, 100000u);
  EXPECT_EQ(storm.time_text, "100.000000");
  EXPECT_DOUBLE_EQ(storm.monotonic_s.value_or(0), 100.0);
  EXPECT_EQ(storm.last_time_text, "199.999000");
  EXPECT_DOUBLE_EQ(storm.last_monotonic_s.value_or(0), 199.999);
  EXPECT_EQ(storm.distinct_details, std::vector<std::string>{kUncontained});
  EXPECT_EQ(storm.distinct_details_dropped, 0u);
  EXPECT_EQ(got.events[2].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(got.events[2].count, 1u);
}

TEST(Storm, InterleavedGpusFoldPerGpuNotPerRun) {
  std::string text;
  for (int i = 0; i < 10; ++i) {
    text += dmesg_line(10 + i, "0000:19:00", 95, kUncontained);
    text += dmesg_line(10 + i, "0000:3b:00", 95, kUncontained);
  }
  ParsedKernelLog got = parse_kernel_log_text(text, LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[0].count, 10u);
  EXPECT_EQ(got.events[1].count, 10u);
  EXPECT_DOUBLE_EQ(got.events[1].last_monotonic_s.value_or(0), 19.0);
}

TEST(Storm, DistinctDetailsAreCappedAndTheRestCountedOnce) {
  std::string text;
  for (int round = 0; round < 2; ++round)
    for (int ch = 0; ch < 20; ++ch)
      text += dmesg_line(1 + ch, "0000:19:00", 94, "Ch 0000000" + std::to_string(ch));
  ParsedKernelLog got = parse_kernel_log_text(text, LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  const KernelLogEvent& e = got.events[0];
  EXPECT_EQ(e.count, 40u);
  ASSERT_EQ(e.distinct_details.size(), klog::kMaxDistinctDetails);
  EXPECT_EQ(e.distinct_details.front(), "Ch 00000000");
  EXPECT_EQ(e.distinct_details.back(), "Ch 00000007");
  EXPECT_EQ(e.distinct_details_dropped, 12u);  // 8..19, each once
}

TEST(Storm, ContinuationLinesOfAFoldedLineAreNotKept) {
  std::string text;
  for (int i = 0; i < 3; ++i)
    text += dmesg_line(1 + i, "0000:9b:00", 119, "Timeout") + "               rpc history " +
            std::to_string(i) + "\n";
  ParsedKernelLog got = parse_kernel_log_text(text, LogBoot::kCurrent);
  ASSERT_EQ(got.events.size(), 1u);
  EXPECT_NE(got.events[0].line.find("| rpc history 0"), std::string::npos);
  EXPECT_EQ(got.events[0].line.find("rpc history 1"), std::string::npos);
  EXPECT_EQ(got.lines, 6u);
}

TEST(Storm, BootsAndKindsNeverFoldTogether) {
  KernelLogEvent a;
  a.kind = EventKind::kXid;
  a.code = 95;
  a.pci_bus_id = "0000:19:00.0";
  a.boot = LogBoot::kPrevious;
  KernelLogEvent b = a;
  b.boot = LogBoot::kCurrent;
  KernelLogEvent c = a;
  c.kind = EventKind::kSxid;
  EXPECT_EQ(klog::fold_events({a, b, c}).size(), 3u);
}

TEST(Storm, FoldedEventsFromTwoSourcesAddUp) {
  KernelLogEvent first;
  first.kind = EventKind::kXid;
  first.code = 95;
  first.boot = LogBoot::kCurrent;
  first.time_unix_s = 100;
  first.count = 3;
  first.last_time_unix_s = 200;
  first.detail = "x";
  first.distinct_details = {"x"};
  KernelLogEvent second = first;
  second.time_unix_s = 150;
  second.count = 2;
  second.last_time_unix_s = 180;  // inside the first's span: last stays 200
  second.distinct_details = {"y"};
  std::vector<KernelLogEvent> got = klog::fold_events({first, second});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].count, 5u);
  EXPECT_EQ(got[0].time_unix_s, 100);
  EXPECT_EQ(got[0].last_time_unix_s, 200);
  EXPECT_EQ(got[0].distinct_details, (std::vector<std::string>{"x", "y"}));
  second.last_time_unix_s = 300;
  got = klog::fold_events({first, second});
  EXPECT_EQ(got[0].last_time_unix_s, 300);
}

}  // namespace storm_test
}  // namespace gt
