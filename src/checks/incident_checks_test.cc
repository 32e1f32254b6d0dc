// incident.* and clock.* findings from an Incident.
#include <gtest/gtest.h>

#include "checks/checks.h"

namespace gt {
namespace incident_checks_test {

std::vector<Finding> run(const Incident& in) {
  NodeSnapshot s;
  s.incident = in;
  std::vector<Finding> out;
  check_incident(s, out);
  return out;
}

const Finding* find(const std::vector<Finding>& fs, const std::string& id) {
  for (const Finding& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(CheckIncident, HungTasksWithoutStorageErrorsBeforeAnAbruptEndAreAStall) {
  Incident in;
  PreviousBoot b;
  b.ending = BootEnding::kAbrupt;
  b.last_entry_unix_s = 1700000000;
  b.hung_tasks = {3, 1699999800, 1700000000,
                  "INFO: task jbd2/vdb1-8:611 blocked for more than 120 seconds."};
  in.previous_boot = b;
  auto fs = run(in);
  EXPECT_FALSE(find(fs, "incident.storage_errors_before_crash"));
  const Finding* stall = find(fs, "incident.hung_tasks_before_crash");
  ASSERT_TRUE(stall);
  EXPECT_EQ(stall->severity, Severity::kWarning);
  EXPECT_NE(stall->title.find("3 tasks blocked"), std::string::npos) << stall->title;
  EXPECT_NE(stall->evidence.find("journal of filesystem vdb1"), std::string::npos)
      << stall->evidence;
  // With a storage error the storage finding says it; a clean end says nothing.
  b.io_errors = {1, 1699999500, 1699999500, "I/O error, dev vdb, sector 8"};
  in.previous_boot = b;
  EXPECT_FALSE(find(run(in), "incident.hung_tasks_before_crash"));
  b.io_errors = {};
  b.ending = BootEnding::kCleanShutdown;
  in.previous_boot = b;
  EXPECT_FALSE(find(run(in), "incident.hung_tasks_before_crash"));
}

TEST(CheckIncident, AbruptEndWithStorageErrorsIsTwoWarnings) {
  Incident in;
  PreviousBoot b;
  b.ending = BootEnding::kAbrupt;
  b.last_entry_unix_s = 1700000000;
  b.io_errors = {14, 1699999500, 1699999990, "I/O error, dev vda, sector 8"};
  b.hung_tasks = {3, 1699999800, 1700000000, "INFO: task"};
  in.previous_boot = b;
  auto fs = run(in);
  const Finding* abrupt = find(fs, "incident.previous_boot_abrupt");
  ASSERT_TRUE(abrupt);
  EXPECT_EQ(abrupt->severity, Severity::kWarning);
  EXPECT_NE(abrupt->title.find("2023-11-14 22:13:20 UTC"), std::string::npos);
  EXPECT_NE(abrupt->evidence.find("14 I/O errors, 3 hung tasks"), std::string::npos);
  const Finding* storage = find(fs, "incident.storage_errors_before_crash");
  ASSERT_TRUE(storage);
  EXPECT_NE(storage->evidence.find("I/O error, dev vda"), std::string::npos);
  EXPECT_FALSE(find(fs, "incident.kernel_panic"));
}

TEST(CheckIncident, CleanEndOrUnknownSaysNothing) {
  Incident in;
  PreviousBoot b;
  b.ending = BootEnding::kCleanShutdown;
  b.io_errors = {2, 1, 2, "I/O error"};  // errors, but it shut down cleanly
  in.previous_boot = b;
  EXPECT_TRUE(run(in).empty());
  EXPECT_TRUE(run(Incident{}).empty());
}

TEST(CheckIncident, PanicCarriesItsFirstLine) {
  Incident in;
  PreviousBoot b;
  b.ending = BootEnding::kKernelPanic;
  b.ending_evidence = "Kernel panic - not syncing: Fatal exception [/sys/fs/pstore/dmesg-efi-1]";
  in.previous_boot = b;
  auto fs = run(in);
  const Finding* p = find(fs, "incident.kernel_panic");
  ASSERT_TRUE(p);
  EXPECT_NE(p->evidence.find("Fatal exception"), std::string::npos);
}

TEST(CheckIncident, ClockFindingsAndTheirBound) {
  Incident in;
  in.clock.kernel_synchronised = true;
  in.clock.rtc_offset_s = kRtcDriftBoundS;  // at the bound: fine
  EXPECT_TRUE(run(in).empty());
  in.clock.rtc_offset_s = 7200;
  in.clock.ntp_synchronised = false;
  in.clock.future_files = 2;
  in.clock.future_example = "/data/x";
  auto fs = run(in);
  EXPECT_TRUE(find(fs, "clock.unsynchronised"));
  ASSERT_TRUE(find(fs, "clock.rtc_drift"));
  EXPECT_NE(find(fs, "clock.rtc_drift")->title.find("7200 s (bound 120 s)"), std::string::npos);
  EXPECT_TRUE(find(fs, "clock.future_files"));
  for (const Finding& f : fs) EXPECT_TRUE(find_check(f.id)) << f.id;
}

// A warning needs evidence: NTP configured and failing. The kernel's flag
// and maximum error alone (a VM the hypervisor keeps in time, no NTP
// daemon) are a note.
TEST(CheckIncident, ClockUnsynchronisedOnlyWarnsWithEvidence) {
  Incident in;
  in.clock.kernel_synchronised = false;
  in.clock.kernel_max_error_us = 16'000'000;
  in.clock.ntp_enabled = false;
  in.clock.ntp_synchronised = false;
  auto fs = run(in);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "clock.unsynchronised");
  EXPECT_EQ(fs[0].severity, Severity::kInfo);
  in.clock.ntp_enabled.reset();
  in.clock.ntp_synchronised.reset();  // no timedatectl (a container)
  fs = run(in);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::kInfo);
  in.clock.ntp_enabled = true;
  in.clock.ntp_synchronised = false;  // configured, and failing
  fs = run(in);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::kWarning);
  EXPECT_NE(fs[0].title.find("NTP is configured"), std::string::npos);
  in.clock.ntp_synchronised = true;
  in.clock.kernel_synchronised = true;
  EXPECT_TRUE(run(in).empty());
}

}  // namespace incident_checks_test
}  // namespace gt
