// Xid 162 cancels an earlier Xid 163 on the same GPU and boot (cancellation.h).
#include "sources/kernel_log/cancellation.h"

#include <gtest/gtest.h>

#include "sources/kernel_log/kernel_log.h"

namespace gt {
namespace cancellation_test {

std::string line(const char* t, const char* bus, int code) {
  return std::string("[") + t + "] NVRM: Xid (PCI:" + bus + "): " + std::to_string(code) +
         ", pid='<unknown>', name=<unknown>, power smoothing\n";
}

const KernelLogEvent* find(const ParsedKernelLog& p, int code, const std::string& bus) {
  for (const KernelLogEvent& e : p.events)
    if (e.code == code && e.pci_bus_id == bus) return &e;
  return nullptr;
}

TEST(Cancellation, Xid162CancelsAnEarlier163OnTheSameGpu) {
  ParsedKernelLog got =
      parse_kernel_log_text(line("10.0", "0000:19:00", 163) + line("11.0", "0000:3b:00", 163) +
                                line("20.0", "0000:19:00", 162),
                            LogBoot::kCurrent);
  const KernelLogEvent* same = find(got, 163, "0000:19:00.0");
  const KernelLogEvent* other = find(got, 163, "0000:3b:00.0");
  ASSERT_TRUE(same && other);
  EXPECT_EQ(same->cancelled_by_code, 162);
  EXPECT_FALSE(other->cancelled_by_code);  // another GPU
  EXPECT_FALSE(find(got, 162, "0000:19:00.0")->cancelled_by_code);
}

TEST(Cancellation, A163AfterThe162StandsAndUntimedLinesAreNotCancelled) {
  ParsedKernelLog later =
      parse_kernel_log_text(line("10.0", "0000:19:00", 163) + line("20.0", "0000:19:00", 162) +
                                line("30.0", "0000:19:00", 163),  // disengaged again
                            LogBoot::kCurrent);
  EXPECT_FALSE(find(later, 163, "0000:19:00.0")->cancelled_by_code);
  ParsedKernelLog untimed = parse_kernel_log_text(
      "NVRM: Xid (PCI:0000:19:00): 163, x\nNVRM: Xid (PCI:0000:19:00): 162, x\n", LogBoot::kFile);
  EXPECT_FALSE(find(untimed, 163, "0000:19:00.0")->cancelled_by_code);
}

TEST(Cancellation, OtherBootsDoNotCancel) {
  KernelLogEvent e163;
  e163.kind = EventKind::kXid;
  e163.code = 163;
  e163.boot = LogBoot::kPrevious;
  e163.monotonic_s = 1;
  KernelLogEvent e162 = e163;
  e162.code = 162;
  e162.boot = LogBoot::kCurrent;
  e162.monotonic_s = 2;
  std::vector<KernelLogEvent> events = {e163, e162};
  klog::mark_cancellations(events);
  EXPECT_FALSE(events[0].cancelled_by_code);
  events[1].boot = LogBoot::kPrevious;
  klog::mark_cancellations(events);
  EXPECT_EQ(events[0].cancelled_by_code, 162);
}

}  // namespace cancellation_test
}  // namespace gt
