#include "sources/procfs/process_info.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace process_info_test {

namespace fs = std::filesystem;
using namespace std::string_view_literals;

constexpr char kStat[] =
    "4242 (python3) S 4100 4242 4100 0 -1 4194560 120000 0 12 0 5400 1200 0 0 "
    "20 0 48 0 987654 25769803776 1234567 18446744073709551615 1 1 0 0 0 0 0 "
    "16781312 17642 0 0 0 17 3 0 0 0 0 0\n";
constexpr char kStatus[] =
    "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\n"
    "Ngid:\t0\nPid:\t4242\nPPid:\t4100\nTracerPid:\t0\n"
    "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"
    "FDSize:\t256\nGroups:\t27 1000 \nNStgid:\t4242\t17\nNSpid:\t4242\t17\n"
    "NSpgid:\t4242\t17\nNSsid:\t4100\t1\nVmPeak:\t 9876543 kB\n"
    "Cpus_allowed:\tffffffff,00000000,ffffffff\nCpus_allowed_list:\t0-31,64-95\n";
constexpr char kPasswd[] =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n";
constexpr int64_t kBootTime = 1732870000;

// A complete fixture for PID 4242 as seen from the host.
void write_process(const TempTree& t) {
  t.write("/proc/stat", "cpu  1 2 3 4\nintr 0\nctxt 99\nbtime 1732870000\n");
  t.write("/etc/passwd", kPasswd);
  t.write("/proc/4242/stat", kStat);
  t.write("/proc/4242/comm", "python3\n");
  t.write("/proc/4242/cmdline", "python3\0-m\0sglang.launch_server\0--tp\0008\0"sv);
  t.write("/proc/4242/status", kStatus);
  t.write("/proc/4242/cgroup", "0::/system.slice/sglang.service\n");
}

GpuProcess filled(const TempTree& t, uint32_t pid = 4242) {
  GpuProcess p;
  p.pid = pid;
  fill_process_details(t.root(), p);
  return p;
}

TEST(ParseProcStat, ReadsStatePpidAndStartTime) {
  std::optional<ProcStat> s = parse_proc_stat(kStat);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->state, 'S');
  EXPECT_EQ(s->ppid, 4100u);
  EXPECT_EQ(s->start_time_ticks, 987654u);
}

TEST(ParseProcStat, CommWithParenSpaceParenInside) {
  std::optional<ProcStat> s =
      parse_proc_stat("77 (evil) (name) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0\n");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->ppid, 1u);
  EXPECT_EQ(s->start_time_ticks, 555u);
}

TEST(ParseProcStat, CommWithSpaces) {
  std::optional<ProcStat> s =
      parse_proc_stat("9 (tmux: server) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0\n");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->start_time_ticks, 42u);
}

TEST(ParseProcStat, MalformedIsNullopt) {
  EXPECT_FALSE(parse_proc_stat("").has_value());
  EXPECT_FALSE(parse_proc_stat("4242 python3 S 1 2 3").has_value());
  EXPECT_FALSE(parse_proc_stat("4242 (python3) S 4100 4242").has_value());
  EXPECT_FALSE(parse_proc_stat("x (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 "
                               "17 18 19")
                   .has_value());
  EXPECT_FALSE(parse_proc_stat("1 (a) S -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 "
                               "16 17 18 19")
                   .has_value());
}

TEST(FillProcessDetails, FillsEveryFieldFromFixture) {
  TempTree t;
  write_process(t);
  GpuProcess p = filled(t);
  EXPECT_TRUE(p.visible);
  EXPECT_FALSE(p.visibility_note.has_value());
  EXPECT_EQ(p.name, "python3");
  EXPECT_EQ(p.uid, 1000u);
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.ppid, 4100u);
  EXPECT_EQ(p.start_time_unix_s, kBootTime + 987654 / ::sysconf(_SC_CLK_TCK));
  ASSERT_TRUE(p.owner.has_value());
  EXPECT_EQ(p.owner->kind, OwnerKind::kSystemdUnit);
  EXPECT_EQ(p.owner->name, "sglang.service");
}

TEST(FillProcessDetails, CmdlineEmbeddedNulsBecomeSpaces) {
  TempTree t;
  write_process(t);
  EXPECT_EQ(filled(t).cmdline, "python3 -m sglang.launch_server --tp 8");
}

TEST(FillProcessDetails, NspidWithTwoLevels) {
  TempTree t;
  write_process(t);
  EXPECT_EQ(filled(t).nspid, (std::vector<uint32_t>{4242, 17}));
}

TEST(FillProcessDetails, NoNspidLineOnOldKernelsIsNullopt) {
  TempTree t;
  write_process(t);
  t.write("/proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
  GpuProcess p = filled(t);
  EXPECT_FALSE(p.nspid.has_value());
  EXPECT_EQ(p.user, "root");
}

TEST(FillProcessDetails, EmptyCmdlineOfKernelThreadIsNullopt) {
  TempTree t;
  write_process(t);
  t.write("/proc/4242/cmdline", "");
  GpuProcess p = filled(t);
  EXPECT_TRUE(p.visible);
  EXPECT_FALSE(p.cmdline.has_value());
}

TEST(FillProcessDetails, MissingPasswdEntryLeavesUserNull) {
  TempTree t;
  write_process(t);
  t.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  GpuProcess p = filled(t);
  EXPECT_EQ(p.uid, 1000u);
  EXPECT_FALSE(p.user.has_value());
}

TEST(FillProcessDetails, MissingBtimeLeavesStartTimeNull) {
  TempTree t;
  write_process(t);
  t.write("/proc/stat", "cpu  1 2 3 4\n");
  GpuProcess p = filled(t);
  EXPECT_TRUE(p.visible);
  EXPECT_FALSE(p.start_time_unix_s.has_value());
  EXPECT_EQ(p.ppid, 4100u);
}

TEST(FillProcessDetails, PidNotInThisNamespace) {
  TempTree t;
  write_process(t);
  GpuProcess p = filled(t, 98765);
  EXPECT_FALSE(p.visible);
  EXPECT_EQ(p.visibility_note,
            "PID 98765 is not visible in this PID namespace (NVML reports "
            "host PIDs; run on the host or with --pid=host)");
  EXPECT_FALSE(p.name.has_value());
  EXPECT_FALSE(p.owner.has_value());
}

TEST(FillProcessDetails, FileVanishingMidReadMeansExited) {
  TempTree t;
  write_process(t);
  fs::remove(t.path("/proc/4242/status"));  // as if it exited after comm
  GpuProcess p = filled(t);
  EXPECT_FALSE(p.visible);
  EXPECT_EQ(p.visibility_note, "process 4242 exited while being read");
  EXPECT_FALSE(p.name.has_value());
  EXPECT_FALSE(p.cmdline.has_value());
  EXPECT_FALSE(p.ppid.has_value());
  EXPECT_FALSE(p.start_time_unix_s.has_value());
}

// Root ignores file modes, so the check runs in a child that drops to nobody.
TEST(FillProcessDetails, PermissionDeniedLeavesOnlyThatFieldNull) {
  TempTree t;
  write_process(t);
  ::chmod(t.path("/proc/4242/cmdline").c_str(), 0);
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) std::_Exit(2);
        GpuProcess p = filled(t);
        bool ok = p.visible && !p.cmdline.has_value() && p.name == "python3" && p.uid == 1000u &&
                  p.owner.has_value();
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FillProcessDetails, CpusAllowedListIsTheProcessesCpus) {
  TempTree t;
  write_process(t);
  GpuProcess p = filled(t);
  ASSERT_TRUE(p.cpus_allowed);
  EXPECT_EQ(format_cpu_list(*p.cpus_allowed), "0-31,64-95");
  t.write("/proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\nCpus_allowed_list:\t0-x\n");
  EXPECT_FALSE(filled(t).cpus_allowed) << "garbage is unknown, not no CPUs";
  t.write("/proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
  EXPECT_FALSE(filled(t).cpus_allowed);
}

// A real process pinned as taskset pins a rank: its status says so.
TEST(FillProcessDetails, APinnedLiveChildReadsItsAffinity) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    const char ok = ::sched_setaffinity(0, sizeof set, &set) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &ok, 1);
    ::pause();
    std::_Exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  GpuProcess p;
  p.pid = static_cast<uint32_t>(child);
  fill_process_details(FsRoot("/"), p);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(ok, 'y');
  ASSERT_TRUE(p.cpus_allowed);
  EXPECT_EQ(format_cpu_list(*p.cpus_allowed), "0");
}

TEST(FillProcessDetails, LiveSelfThroughRealRoot) {
  GpuProcess p;
  p.pid = static_cast<uint32_t>(::getpid());
  fill_process_details(FsRoot("/"), p);
  EXPECT_TRUE(p.visible);
  EXPECT_TRUE(p.name.has_value() && !p.name->empty());
  EXPECT_TRUE(p.cmdline.has_value());
  EXPECT_EQ(p.uid, static_cast<uint32_t>(::getuid()));
  EXPECT_EQ(p.ppid, static_cast<uint32_t>(::getppid()));
  if (p.nspid) {
    EXPECT_EQ(p.nspid->front(), p.pid);
  }
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  ASSERT_TRUE(p.start_time_unix_s.has_value());
  EXPECT_GE(*p.start_time_unix_s, now - 3600);
  EXPECT_LE(*p.start_time_unix_s, now + 2);
}

}  // namespace process_info_test
}  // namespace gt
