// The previous boot from the journal: message kinds from real lines, the
// boot list in both forms, the ending, the last minutes, and each failure.
#include "sources/incident/journal.h"

#include <gtest/gtest.h>

#include "sources/incident/fake_host_test_util.h"

namespace gt {
namespace journal_test {

JournalEntry kernel(int64_t t, std::string m) { return {t, "kernel", std::move(m), "", "", ""}; }

TEST(MessageKind, KernelLinesFromTheirDocumentedFormats) {
  auto k = [](const char* m) { return message_kind(kernel(0, m)); };
  EXPECT_EQ(k("I/O error, dev nvme0n1, sector 1336320 op 0x0:(READ) flags 0x80700 phys_seg 4 "
              "prio class 2"),
            MessageKind::kIoError);
  EXPECT_EQ(k("blk_update_request: I/O error, dev sdb, sector 1953120 op 0x0:(READ) flags 0x0 "
              "phys_seg 1 prio class 0"),
            MessageKind::kIoError);
  EXPECT_EQ(k("Buffer I/O error on dev sdb1, logical block 244139, async page read"),
            MessageKind::kIoError);
  EXPECT_EQ(k("EXT4-fs (vda1): Remounting filesystem read-only"), MessageKind::kReadOnlyRemount);
  EXPECT_EQ(k("INFO: task kworker/u16:2:1234 blocked for more than 120 seconds."),
            MessageKind::kHungTask);
  EXPECT_EQ(k("Out of memory: Killed process 1234 (python3) total-vm:1000kB, anon-rss:10kB"),
            MessageKind::kOomKill);
  EXPECT_EQ(k("nvme nvme0: I/O 263 QID 2 timeout, reset controller"), MessageKind::kStorageReset);
  EXPECT_EQ(k("NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus."), MessageKind::kXid);
  EXPECT_EQ(k("Kernel panic - not syncing: Fatal exception"), MessageKind::kKernelPanic);
  EXPECT_EQ(k("reboot: Restarting system"), MessageKind::kRebootRequested);
  EXPECT_EQ(k("reboot: Power down"), MessageKind::kPowerOff);
  EXPECT_EQ(k("EXT4-fs (vda1): mounted filesystem with ordered data mode."), MessageKind::kOther);
}

TEST(MessageKind, SystemdShutdownMessages) {
  JournalEntry logind{0,
                      "systemd-logind",
                      "System is powering down.",
                      "98268866d1d54a499c4e98921d93bc40",
                      "power-off",
                      "1117"};
  EXPECT_EQ(message_kind(logind), MessageKind::kPowerOff);
  logind.shutdown = "reboot";
  EXPECT_EQ(message_kind(logind), MessageKind::kRebootRequested);
  JournalEntry pid1{0, "systemd", "Reached target System Reboot.", "", "", "1"};
  EXPECT_EQ(message_kind(pid1), MessageKind::kRebootRequested);
  JournalEntry user{0, "systemd", "Reached target Shutdown.", "", "", "2481"};  // a logout
  EXPECT_EQ(message_kind(user), MessageKind::kOther);
  user.pid = "1";
  EXPECT_EQ(message_kind(user), MessageKind::kShutdownGeneric);
}

TEST(ParseBootList, JsonWithHashKeyAsSystemd251PrintsIt) {
  // systemd/systemd#22721's example, in microseconds.
  auto boots = parse_boot_list(
      R"([{"#":"-1","boot_id":"c8ebd52915b642c39eda4bf00f864f79","first_entry":1646490033438495,)"
      R"("last_entry":1646493561047353},{"index":0,"boot_id":"00bcba97c7094fa88cc5d1cf2a389057",)"
      R"("first_entry":1646500000000000,"last_entry":1646500100000000}])");
  ASSERT_EQ(boots.size(), 2u);
  EXPECT_EQ(boots[0].index, -1);
  EXPECT_EQ(boots[0].boot_id, "c8ebd52915b642c39eda4bf00f864f79");
  EXPECT_EQ(boots[0].first_unix_s, 1646490033);
  EXPECT_EQ(boots[0].last_unix_s, 1646493561);
  EXPECT_EQ(boots[1].index, 0);
}

TEST(ParseBootList, PlainTableReadsUtcTimesOnly) {
  auto boots = parse_boot_list(
      "-1 c8ebd52915b642c39eda4bf00f864f79 Fri 2022-03-11 17:38:41 UTC\xe2\x80\x94"
      "Fri 2022-03-11 20:03:46 UTC\n"
      " 0 00bcba97c7094fa88cc5d1cf2a389057 Sat 2022-03-12 20:39:08 CET Sat 2022-03-12 "
      "20:40:18 CET\n");
  ASSERT_EQ(boots.size(), 2u);
  EXPECT_EQ(boots[0].first_unix_s, 1647020321);
  EXPECT_EQ(boots[0].last_unix_s, 1647029026);
  EXPECT_FALSE(boots[1].first_unix_s);
  EXPECT_TRUE(parse_boot_list("garbage\n{").empty());
}

TEST(ParseJournalJson, CountsGarbageAndReadsBinaryMessages) {
  uint64_t garbage = 0;
  auto e = parse_journal_json(
      "{\"__REALTIME_TIMESTAMP\":\"1700000000123456\",\"_TRANSPORT\":\"kernel\","
      "\"MESSAGE\":[73,47,79]}\nnot json\n[1]\n\n",
      garbage);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].time_unix_s, 1700000000);
  EXPECT_EQ(e[0].identifier, "kernel");
  EXPECT_EQ(e[0].message, "I/O");
  EXPECT_EQ(garbage, 2u);
}

TEST(SummarisePreviousBoot, AbruptAfterStorageErrorsAndHungTasks) {
  const int64_t end = 1'700'000'000;
  std::vector<JournalEntry> es = {
      kernel(end - 5000, "Buffer I/O error on dev vda1, logical block 1, lost async page write"),
      kernel(end - 300,
             "I/O error, dev vda, sector 8 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio "
             "class 0"),
      kernel(end - 200, "EXT4-fs (vda1): Remounting filesystem read-only"),
      kernel(end - 120, "INFO: task python3:4242 blocked for more than 120 seconds."),
      kernel(end, "INFO: task jbd2/vda1-8:311 blocked for more than 241 seconds.")};
  PreviousBoot b;
  summarise_previous_boot(es, b);
  EXPECT_EQ(b.ending, BootEnding::kAbrupt);
  EXPECT_EQ(b.last_entry_unix_s, end);
  EXPECT_EQ(b.io_errors.count, 1u);  // the one 5000 s before the end is not "last minutes"
  EXPECT_EQ(b.read_only_remounts.count, 1u);
  EXPECT_EQ(b.hung_tasks.count, 2u);
  EXPECT_EQ(b.hung_tasks.first_unix_s, end - 120);
  EXPECT_EQ(b.hung_tasks.last_unix_s, end);
}

TEST(SummarisePreviousBoot, RebootOutranksGenericShutdown) {
  std::vector<JournalEntry> es = {{100, "systemd-logind", "System is rebooting.", "", "", "900"},
                                  {101, "systemd", "Reached target Shutdown.", "", "", "1"},
                                  {102, "systemd-journald", "Journal stopped", "", "", "300"}};
  PreviousBoot b;
  summarise_previous_boot(es, b);
  EXPECT_EQ(b.ending, BootEnding::kReboot);
  EXPECT_EQ(b.ending_evidence, "System is rebooting.");
  es.erase(es.begin());
  PreviousBoot c;
  summarise_previous_boot(es, c);
  EXPECT_EQ(c.ending, BootEnding::kCleanShutdown);
}

const char* kList =
    R"([{"index":-1,"boot_id":"aaaabbbbccccddddeeeeffff00001111","first_entry":1699990000000000,)"
    R"("last_entry":1700000000000000},{"index":0,"boot_id":"1","first_entry":1,"last_entry":2}])";

TEST(ReadPreviousBoot, ReadsBothCommandsUnderTheTimeout) {
  FakeHost h;
  h.answers["journalctl --list-boots"] = FakeHost::ok(kList);
  h.answers["journalctl -b"] = FakeHost::ok(
      "{\"__REALTIME_TIMESTAMP\":\"1699999990000000\",\"SYSLOG_IDENTIFIER\":\"kernel\","
      "\"MESSAGE\":\"Out of memory: Killed process 7 (x)\"}\n");
  JournalOptions o;
  o.runner = &h;
  o.max_entries = 500;
  Incident in;
  read_previous_boot(o, in);
  ASSERT_TRUE(in.previous_boot);
  EXPECT_EQ(in.previous_boot->boot_id, "aaaabbbbccccddddeeeeffff00001111");
  EXPECT_EQ(in.previous_boot->ending, BootEnding::kAbrupt);
  EXPECT_EQ(in.previous_boot->oom_kills.count, 1u);
  EXPECT_EQ(in.previous_boot->last_entry_unix_s, 1700000000);  // from the list
  ASSERT_EQ(h.asked.size(), 2u);
  EXPECT_EQ(h.asked[1], previous_boot_argv(500));
  EXPECT_TRUE(in.unread.empty());
}

TEST(ReadPreviousBoot, EachFailureIsOneLine) {
  JournalOptions o;
  FakeHost missing;  // journalctl not installed
  o.runner = &missing;
  Incident a;
  read_previous_boot(o, a);
  EXPECT_FALSE(a.previous_boot);
  ASSERT_EQ(a.unread.size(), 1u);
  EXPECT_NE(a.unread[0].find("No such file"), std::string::npos);

  FakeHost hung;
  hung.answers["journalctl --list-boots"].timed_out = true;
  o.runner = &hung;
  Incident b;
  read_previous_boot(o, b);
  ASSERT_EQ(b.unread.size(), 1u);
  EXPECT_NE(b.unread[0].find("timed out"), std::string::npos);

  FakeHost volatile_journal;
  volatile_journal.answers["journalctl --list-boots"] =
      FakeHost::ok(R"([{"index":0,"boot_id":"x","first_entry":1,"last_entry":2}])");
  o.runner = &volatile_journal;
  Incident c;
  read_previous_boot(o, c);
  ASSERT_EQ(c.unread.size(), 1u);
  EXPECT_NE(c.unread[0].find("no previous boot"), std::string::npos);

  FakeHost no_files;
  no_files.answers["journalctl --list-boots"].exit_code = 1;
  no_files.answers["journalctl --list-boots"].err = "No journal files were found.\n";
  o.runner = &no_files;
  Incident d;
  read_previous_boot(o, d);
  ASSERT_EQ(d.unread.size(), 1u);
  EXPECT_NE(d.unread[0].find("No journal files were found."), std::string::npos);

  FakeHost garbage;
  garbage.answers["journalctl --list-boots"] = FakeHost::ok(kList);
  garbage.answers["journalctl -b"] = FakeHost::ok("\x01\x02 not json\n{{{\n");
  o.runner = &garbage;
  Incident e;
  read_previous_boot(o, e);
  ASSERT_EQ(e.unread.size(), 1u);
  EXPECT_NE(e.unread[0].find("not journal JSON (2 lines"), std::string::npos);
  ASSERT_TRUE(e.previous_boot);
  EXPECT_EQ(e.previous_boot->ending, BootEnding::kUnknown);
}

}  // namespace journal_test
}  // namespace gt
