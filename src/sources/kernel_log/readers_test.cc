// Reading the kernel log (readers.cc): /dev/kmsg in a fixture tree, the
// journal through a fake runner, kern.log split by boot time, --kernel-log.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/kernel_log/kernel_log.h"
#include "util/test_util.h"

namespace gt {
namespace readers_test {

class FakeRunner : public CommandRunner {
 public:
  explicit FakeRunner(CommandResult r) : result_(std::move(r)) {}
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout) const override {
    argv_ = argv;
    timeout_ = timeout;
    return result_;
  }
  mutable std::vector<std::string> argv_;
  mutable std::chrono::milliseconds timeout_{0};

 private:
  CommandResult result_;
};

const KernelLog::Source* find_source(const KernelLog& log, const std::string& name) {
  for (const auto& s : log.sources)
    if (s.name == name) return &s;
  return nullptr;
}

constexpr int64_t kBtime = 1736150000;

void write_kmsg_tree(const TempTree& t) {
  t.write("/proc/stat", "cpu  1 2 3\nbtime " + std::to_string(kBtime) + "\nprocesses 5\n");
  t.write("/dev/kmsg",
          "6,0,1000000,-;Linux version 6.1.0\n"
          "4,17,1843308145,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has "
          "fallen off the bus.\n"
          " SUBSYSTEM=pci\n"
          "4,18,1843400000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 22013, Non-fatal, Link 1 "
          "x\n");
}

TEST(KernelLogRead, KmsgFileInAFixtureTree) {
  TempTree t;
  write_kmsg_tree(t);
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_FALSE(src->error.has_value());
  EXPECT_EQ(src->boot, LogBoot::kCurrent);
  EXPECT_EQ(src->lines, 4u);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1"), nullptr);  // only for root "/"
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].code, 79);
  EXPECT_EQ(log.events[0].boot, LogBoot::kCurrent);
  EXPECT_EQ(log.events[0].time_unix_s, kBtime + 1843);
  EXPECT_EQ(log.events[1].kind, EventKind::kSxid);
}

TEST(KernelLogRead, KmsgAbsentIsNotFound) {
  TempTree t;
  t.write("/proc/stat", "btime 1\n");
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  EXPECT_EQ(src->error, "not found");
}

TEST(KernelLogRead, KmsgUnreadableIsAnError) {
  TempTree t;
  std::filesystem::create_directories(t.path("/dev/kmsg"));
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/dev/kmsg");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  ASSERT_TRUE(src->error.has_value());
  EXPECT_NE(src->error->find("Is a directory"), std::string::npos) << *src->error;
}

TEST(KernelLogRead, KmsgPermissionDeniedNamesCapSyslog) {
  TempTree t;
  write_kmsg_tree(t);
  ::chmod(t.path("/dev/kmsg").c_str(), 0);
  ::chmod(t.path("/dev").c_str(), 0755);
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) std::_Exit(2);
        KernelLog log = read_kernel_log(t.root(), {});
        const KernelLog::Source* src = find_source(log, "/dev/kmsg");
        bool ok =
            src && !src->read && src->error == "permission denied (run as root or with CAP_SYSLOG)";
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(KernelLogRead, MissingJournalReportsJournalctlsMessage) {
  CommandResult r;
  r.exit_code = 1;
  r.err = "No journal files were found.\n-- No entries --\n";
  FakeRunner fake(r);
  KernelLogOptions o;
  o.runner = &fake;
  o.command_timeout = std::chrono::milliseconds(1234);
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  const KernelLog::Source* src = find_source(log, "journalctl -k -b -1");
  ASSERT_NE(src, nullptr);
  EXPECT_FALSE(src->read);
  EXPECT_EQ(src->boot, LogBoot::kPrevious);
  EXPECT_EQ(src->error, "No journal files were found.");
  EXPECT_EQ(fake.argv_, (std::vector<std::string>{"journalctl", "-k", "-b", "-1", "-o", "short-iso",
                                                  "--no-pager", "-q"}));
  EXPECT_EQ(fake.timeout_, std::chrono::milliseconds(1234));
}

TEST(KernelLogRead, JournalTimeoutAndSpawnErrorAreReported) {
  CommandResult timed_out;
  timed_out.timed_out = true;
  FakeRunner slow(timed_out);
  KernelLogOptions o;
  o.runner = &slow;
  o.command_timeout = std::chrono::milliseconds(3000);
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1")->error, "timed out after 3000 ms");
  CommandResult missing;
  missing.spawn_error = "cannot run journalctl: No such file or directory";
  FakeRunner absent(missing);
  o.runner = &absent;
  log = read_kernel_log(FsRoot("/"), o);
  EXPECT_EQ(find_source(log, "journalctl -k -b -1")->error,
            "cannot run journalctl: No such file or directory");
}

TEST(KernelLogRead, JournalPreviousBootEvents) {
  CommandResult r;
  r.exit_code = 0;
  r.out =
      "2025-01-06T10:00:00+0000 node kernel: Linux version 6.1.0\n"
      "2025-01-06T10:05:00+0000 node kernel: NVRM: Xid (PCI:0000:19:00): 48, pid='<unknown>', "
      "name=<unknown>, An uncorrectable double bit error (DBE) has been detected\n";
  FakeRunner fake(r);
  KernelLogOptions o;
  o.runner = &fake;
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  const KernelLog::Source* src = find_source(log, "journalctl -k -b -1");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_EQ(src->lines, 2u);
  std::vector<KernelLogEvent> previous;
  for (const auto& e : log.events)
    if (e.boot == LogBoot::kPrevious) previous.push_back(e);
  ASSERT_EQ(previous.size(), 1u);
  EXPECT_EQ(previous[0].code, 48);
  EXPECT_EQ(previous[0].pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(previous[0].time_unix_s, 1736157900);
}

TEST(KernelLogRead, KernLogSplitsByBootTimeWithoutKmsg) {
  TempTree t;
  t.write("/proc/stat", "btime " + std::to_string(kBtime) + "\n");
  t.write("/var/log/kern.log",
          "2025-01-06T07:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 79, GPU has fallen "
          "off the bus.\n"
          "2025-01-06T09:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 13, pid=5, name=a, "
          "x\n");
  KernelLog log = read_kernel_log(t.root(), {});
  const KernelLog::Source* src = find_source(log, "/var/log/kern.log");
  ASSERT_NE(src, nullptr);
  EXPECT_TRUE(src->read);
  EXPECT_EQ(find_source(log, "/var/log/kern.log.1"), nullptr);  // absent: not tried
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].code, 79);
  EXPECT_EQ(log.events[0].boot, LogBoot::kPrevious);  // 07:00Z is before btime (07:53:20Z)
  EXPECT_EQ(log.events[1].code, 13);
  EXPECT_EQ(log.events[1].boot, LogBoot::kCurrent);
}

// Issue 32: a link in the tree is the tree's. /var/log/kern.log pointing at
// an absolute path names that path inside the root, never this machine's
// file (which here holds an Xid that must not be read).
TEST(KernelLogRead, KernLogLinkIsResolvedInTheRootNotOnThisMachine) {
  TempTree host;
  host.write("/kern.log",
             "2025-01-06T09:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 79, GPU has "
             "fallen off the bus.\n");
  TempTree t;
  t.write("/proc/stat", "btime " + std::to_string(kBtime) + "\n");
  t.symlink(host.path("/kern.log"), "/var/log/kern.log");
  KernelLog log = read_kernel_log(t.root(), {});
  EXPECT_TRUE(log.events.empty());
  EXPECT_EQ(find_source(log, "/var/log/kern.log"), nullptr);  // not in the tree: not tried
  // The same file inside the tree, by an absolute link: read.
  t.write(host.path("/kern.log"),
          "2025-01-06T09:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 13, pid=5, "
          "name=a, x\n");
  KernelLog inside = read_kernel_log(t.root(), {});
  ASSERT_EQ(inside.events.size(), 1u);
  EXPECT_EQ(inside.events[0].code, 13);
}

TEST(KernelLogRead, KernLogCurrentBootEventsAreNotDoubledWithKmsg) {
  TempTree t;
  write_kmsg_tree(t);
  t.write("/var/log/kern.log.1",
          "2025-01-06T07:00:00+00:00 node kernel: NVRM: Xid (PCI:0000:19:00): 48, x\n");
  t.write("/var/log/kern.log",
          "2025-01-06T09:04:03+00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, "
          "name=python3, GPU has fallen off the bus.\n");
  KernelLog log = read_kernel_log(t.root(), {});
  ASSERT_EQ(log.events.size(), 3u);
  EXPECT_EQ(log.events[0].code, 48);
  EXPECT_EQ(log.events[0].boot, LogBoot::kPrevious);
  EXPECT_EQ(log.events[1].code, 79);
  EXPECT_EQ(log.events[1].line.rfind("4,17,", 0), 0u);  // the kmsg copy, not kern.log's
  EXPECT_EQ(log.events[2].kind, EventKind::kSxid);
  EXPECT_EQ(log.sources.size(), 3u);
}

TEST(KernelLogRead, FileOptionReadsOnlyThatFile) {
  TempTree t;
  write_kmsg_tree(t);
  t.write("/saved/dmesg.txt", "[ 5.0] NVRM: Xid (PCI:0000:01:00): 13, pid=1, name=a, x\n");
  KernelLogOptions o;
  o.file = t.path("/saved/dmesg.txt");
  KernelLog log = read_kernel_log(t.root(), o);
  ASSERT_EQ(log.sources.size(), 1u);
  EXPECT_EQ(log.sources[0].name, *o.file);
  EXPECT_EQ(log.sources[0].boot, LogBoot::kFile);
  EXPECT_TRUE(log.sources[0].read);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].boot, LogBoot::kFile);
  EXPECT_EQ(log.events[0].code, 13);
}

TEST(KernelLogRead, FileOptionMissingFile) {
  KernelLogOptions o;
  o.file = "/nonexistent/gt-kernel.log";
  KernelLog log = read_kernel_log(FsRoot("/"), o);
  ASSERT_EQ(log.sources.size(), 1u);
  EXPECT_FALSE(log.sources[0].read);
  EXPECT_EQ(log.sources[0].error,
            "cannot open /nonexistent/gt-kernel.log: No such file or directory");
  EXPECT_TRUE(log.events.empty());
}

TEST(KernelLogDates, HugeBtimeGivesNoWallTimeInsteadOfOverflow) {
  TempTree t;
  t.write("/proc/stat", "cpu 1 2 3\nbtime 9223372036854775807\n");
  t.write("/dev/kmsg",
          "4,17,18446744073709551615,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=a, x\n"
          "4,18,1843308145,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=2, name=b, x\n");
  KernelLog log = read_kernel_log(t.root(), {});
  ASSERT_EQ(log.events.size(), 1u);  // two lines of one Xid on one GPU
  const KernelLogEvent& e = log.events[0];
  EXPECT_EQ(e.count, 2u);
  EXPECT_FALSE(e.time_unix_s);
  EXPECT_FALSE(e.last_time_unix_s);
  EXPECT_FALSE(e.monotonic_s);
  EXPECT_DOUBLE_EQ(e.last_monotonic_s.value_or(0), 1843.308145);
}

}  // namespace readers_test
}  // namespace gt
