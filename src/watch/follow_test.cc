// The followers over real files: a kernel log that grows, and a data folder
// a writer fills.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "util/gzip.h"
#include "util/test_util.h"
#include "watch/data_follow.h"
#include "watch/kernel_follow.h"

namespace gt {
namespace follow_test {

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

const char* kXid79 =
    "[  200.1] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen "
    "off the bus.\n";

TEST(KernelLogFollower, BaselineIsJudgedNotAnnouncedThenNewKeysOnce) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  append(log,
         "[  100.0] NVRM: Xid (PCI:0000:2a:00): 13, pid=42, name=python3, Graphics Exception\n");
  KernelLogFollower f("/", log);
  ASSERT_TRUE(f.readable());
  EXPECT_TRUE(f.poll().empty()) << "the baseline is not news";
  ASSERT_EQ(f.log().events.size(), 1u);
  // A record split over two writes is read whole, once.
  const std::string line = kXid79;
  append(log, line.substr(0, 40));
  EXPECT_TRUE(f.poll().empty());
  append(log, line.substr(40));
  std::vector<KernelLogEvent> fresh = f.poll();
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].code, 79);
  EXPECT_EQ(fresh[0].pci_bus_id, "0000:9a:00.0");
  // A storm of the same key folds into that event, said no more.
  for (int i = 0; i < 50; ++i) append(log, kXid79);
  EXPECT_TRUE(f.poll().empty());
  ASSERT_EQ(f.log().events.size(), 2u);
  EXPECT_EQ(f.log().events[1].count, 51u);
}

TEST(KernelLogFollower, UnreadableIsASourceErrorNotAFailure) {
  KernelLogFollower f("/", std::string("/nonexistent/kern.log"));
  EXPECT_FALSE(f.readable());
  EXPECT_TRUE(f.poll().empty());
  ASSERT_EQ(f.log().sources.size(), 1u);
  EXPECT_EQ(f.log().sources[0].error, "not found");
  EXPECT_FALSE(f.log().sources[0].read);
}

TEST(KernelLogFollower, TruncatedFileIsReadFromTheStart) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  append(log, std::string(200, 'x') + "\n");
  KernelLogFollower f("/", log);
  f.poll();
  std::filesystem::resize_file(log, 0);
  append(log, kXid79);
  EXPECT_EQ(f.poll().size(), 1u);
  EXPECT_EQ(f.take_notes(),
            std::vector<std::string>{log + " truncated, read again from its start"});
}

// Only /dev/kmsg (1:11) and regular files are logs; /dev/zero was taken
// for kmsg and read forever (no bound, no signal seen).
TEST(KernelLogFollower, OnlyKmsgAndRegularFilesAreFollowed) {
  TempTree t;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/zero", &st), 0);
  EXPECT_EQ(not_a_kernel_log(st), "a character device (1:5)");
  if (::stat("/dev/kmsg", &st) == 0 && S_ISCHR(st.st_mode)) {
    EXPECT_EQ(not_a_kernel_log(st), std::nullopt) << "the real /dev/kmsg";
  }
  append(t.path("/kern.log"), "x\n");
  EXPECT_EQ(refuse_kernel_log_file(t.path("/kern.log")), std::nullopt);
  EXPECT_EQ(refuse_kernel_log_file(t.path("/not-yet.log")), std::nullopt) << "waited for";
  const std::string why =
      ", not a log: watch follows /dev/kmsg (1:11) or a regular file (a saved "
      "dmesg, kern.log, syslog)";
  EXPECT_EQ(refuse_kernel_log_file("/dev/zero"), "a character device (1:5)" + why);
  EXPECT_EQ(refuse_kernel_log_file("/dev/null"), "a character device (1:3)" + why);
  ASSERT_EQ(::mkfifo(t.path("/fifo").c_str(), 0600), 0);
  EXPECT_EQ(refuse_kernel_log_file(t.path("/fifo")), "a FIFO" + why);
  EXPECT_EQ(refuse_kernel_log_file(t.dir()), "a directory" + why);
  ASSERT_TRUE(refuse_kernel_log_file("-").has_value());
  // The follower itself never reads one: said as the source's error.
  KernelLogFollower zero("/", std::string("/dev/zero"));
  EXPECT_FALSE(zero.readable());
  EXPECT_TRUE(zero.poll().empty());
  EXPECT_EQ(zero.log().sources[0].error, "not a log: a character device (1:5)");
  // A root whose dev/kmsg is a FIFO: not the kernel's log either.
  std::filesystem::create_directories(t.path("/root/dev"));
  ASSERT_EQ(::mkfifo(t.path("/root/dev/kmsg").c_str(), 0600), 0);
  KernelLogFollower fifo(t.path("/root"), std::nullopt);
  EXPECT_FALSE(fifo.readable());
  EXPECT_EQ(fifo.log().sources[0].error, "not a log: a FIFO");
}

const char* kXid13 =
    "[  300.1] NVRM: Xid (PCI:0000:2a:00): 13, pid=42, name=python3, Graphics Exception\n";
const char* kXid48 = "[  300.2] NVRM: Xid (PCI:0000:3a:00): 48, pid=42, name=python3, DBE\n";

// logrotate's default: kern.log renamed to kern.log.1 (rsyslog writes on
// to it until its HUP), then a new kern.log. Both are read; the new one
// from its start. (Before: the old inode forever, every later Xid missed.)
TEST(KernelLogFollower, RotationByRenameIsFollowedByName) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  append(log, "[  1.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n");
  KernelLogFollower f("/", log);
  EXPECT_TRUE(f.poll().empty());
  std::filesystem::rename(log, log + ".1");
  append(log + ".1", kXid13);  // before the HUP: still the old file
  EXPECT_EQ(f.poll().size(), 1u) << "renamed away, no new file yet: the old one is read on";
  append(log + ".1", kXid48);
  append(log, kXid79);
  std::vector<KernelLogEvent> fresh = f.poll();
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].code, 48) << "the rest of the old file first";
  EXPECT_EQ(fresh[1].code, 79);
  EXPECT_EQ(f.take_notes(), std::vector<std::string>{log + " rotated, reopened"});
  EXPECT_TRUE(f.take_notes().empty()) << "said once";
  // The new file is the one followed now.
  append(log, "[  400.0] NVRM: Xid (PCI:0000:5a:00): 31, pid=1, name=x, MMU Fault\n");
  fresh = f.poll();
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].code, 31);
  EXPECT_EQ(f.log().sources[0].name, log);
}

TEST(KernelLogFollower, AFileThatAppearsLaterIsFollowedAndAllOfItIsNew) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  KernelLogFollower f("/", log);
  EXPECT_TRUE(f.poll().empty());
  EXPECT_EQ(f.log().sources[0].error, "not found");
  append(log, kXid79);
  ASSERT_EQ(f.poll().size(), 1u);
  EXPECT_TRUE(f.readable());
  EXPECT_EQ(f.log().sources[0].error, std::nullopt);
  EXPECT_EQ(f.take_notes(), std::vector<std::string>{log + " appeared: following it"});
}

TEST(KernelLogFollower, ALineWithNoNewlineIsDroppedPastItsBound) {
  TempTree t;
  const std::string log = t.path("/kern.log");
  KernelLogFollower f("/", log);
  f.poll();
  append(log, std::string(3 << 20, 'x'));  // 3 MiB, no newline: not a log line
  append(log, std::string("\n") + kXid79);
  EXPECT_EQ(f.poll().size(), 1u);
}

std::string gzip_of(const std::string& payload) { return gzip_bytes(payload, 6); }

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(DataFollower, SettledNewFilesVerifiedBadOnesOnceStallAndGone) {
  TempTree t;
  const std::string dir = t.path("/out");
  std::filesystem::create_directories(dir);
  const int64_t t0 = 1764585600000;
  DataFollower d(dir, 10, t0);
  EXPECT_TRUE(d.poll(t0).empty());
  std::string good = gzip_of(std::string(5000, 'a'));
  write_file(dir + "/sample_00000.gz", good);
  write_file(dir + "/sample_00001.gz", good.substr(0, good.size() / 2));
  // Not settled yet: nothing verified.
  EXPECT_TRUE(d.poll(t0 + 1000).empty());
  EXPECT_EQ(d.progress().pending, 2u);
  std::vector<Change> c = d.poll(t0 + 1000 + DataFollower::kSettleS * 1000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kBadFile);
  EXPECT_EQ(c[0].path, dir + "/sample_00001.gz");
  EXPECT_NE(c[0].text.find("truncated"), std::string::npos) << c[0].text;
  EXPECT_EQ(d.progress().new_intact, 1u);
  EXPECT_EQ(d.progress().new_bad, 1u);
  EXPECT_TRUE(d.poll(t0 + 6000).empty()) << "said once";
  // A second good file gives a pace; then nothing: a stall, said once.
  write_file(dir + "/sample_00002.gz", good);
  d.poll(t0 + 7000);
  d.poll(t0 + 11000);
  ASSERT_TRUE(d.progress().per_min.has_value());
  EXPECT_EQ(d.progress().remaining, 8);
  ASSERT_TRUE(d.progress().eta_s.has_value());
  std::vector<Change> stall = d.poll(t0 + 11000 + 60000);
  ASSERT_EQ(stall.size(), 1u);
  EXPECT_EQ(stall[0].kind, ChangeKind::kStall);
  EXPECT_TRUE(d.poll(t0 + 11000 + 61000).empty());
  // The folder goes away: raised, not a crash; back: said too.
  std::filesystem::rename(dir, dir + ".moved");
  std::vector<Change> gone = d.poll(t0 + 80000);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].kind, ChangeKind::kDataGone);
  EXPECT_TRUE(d.poll(t0 + 81000).empty());
  std::filesystem::rename(dir + ".moved", dir);
  std::vector<Change> back = d.poll(t0 + 82000);
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(back[0].kind, ChangeKind::kDataBack);
}

TEST(DataFollower, AFolderMadeAfterWatchStartedIsFollowedAndItsFilesVerified) {
  TempTree t;
  const std::string dir = t.path("/job/out");
  const int64_t t0 = 1764585600000;
  DataFollower d(dir, std::nullopt, t0);
  std::vector<Change> c = d.poll(t0);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kNote);
  EXPECT_EQ(c[0].text, "data folder does not exist yet: waiting for it");
  EXPECT_TRUE(d.progress().waiting);
  EXPECT_FALSE(d.progress().gone) << "not there yet is not gone";
  EXPECT_TRUE(d.poll(t0 + 1000).empty()) << "said once";
  // The job starts and makes its folder, with a good and a truncated file.
  std::filesystem::create_directories(dir);
  const std::string good = gzip_of(std::string(5000, 'a'));
  write_file(dir + "/sample_00000.gz", good);
  write_file(dir + "/sample_00001.gz", good.substr(0, good.size() / 2));
  c = d.poll(t0 + 2000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kDataCreated);
  EXPECT_EQ(c[0].severity, Severity::kInfo);
  EXPECT_EQ(c[0].text, "data folder created: following it, each file in it new");
  EXPECT_FALSE(d.progress().waiting);
  EXPECT_EQ(d.progress().pending, 2u);
  c = d.poll(t0 + 2000 + DataFollower::kSettleS * 1000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kBadFile);
  EXPECT_EQ(c[0].path, dir + "/sample_00001.gz");
  EXPECT_EQ(d.progress().new_intact, 1u);
}

TEST(DataFollower, AFolderMadeAnewIsFollowedAndItsFilesVerified) {
  TempTree t;
  const std::string dir = t.path("/out");
  std::filesystem::create_directories(dir);
  const std::string good = gzip_of(std::string(5000, 'a'));
  for (int i = 0; i < 3; ++i) write_file(dir + "/sample_0000" + std::to_string(i) + ".gz", good);
  const int64_t t0 = 1764585600000;
  DataFollower d(dir, 10, t0);
  EXPECT_TRUE(d.poll(t0).empty());
  // rm -rf out; mkdir out within one tick: a new inode at the same path.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file(dir + "/sample_00000.gz", good);
  write_file(dir + "/sample_00001.gz", good.substr(0, good.size() / 2));
  std::vector<Change> c = d.poll(t0 + 1000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kDataCreated);
  EXPECT_EQ(c[0].severity, Severity::kWarning);
  EXPECT_EQ(c[0].text,
            "data folder recreated (3 files of the old one no longer there): following the new "
            "one, each file in it new");
  c = d.poll(t0 + 1000 + DataFollower::kSettleS * 1000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kBadFile);
  EXPECT_EQ(c[0].path, dir + "/sample_00001.gz");
  EXPECT_EQ(d.progress().remaining, 9) << "the old folder's samples are gone";
  // Removed, then made again on a later tick: gone, then recreated.
  std::filesystem::remove_all(dir);
  c = d.poll(t0 + 10000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kDataGone);
  std::filesystem::create_directories(dir);
  c = d.poll(t0 + 11000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kDataCreated);
  EXPECT_FALSE(d.progress().gone);
}

TEST(DataFollower, AFileThatIsNotAFolderCannotBeRead) {
  TempTree t;
  write_file(t.path("/out"), "x");
  DataFollower d(t.path("/out"), std::nullopt, 0);
  std::vector<Change> c = d.poll(0);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, ChangeKind::kDataGone);
  EXPECT_EQ(c[0].text, "data folder cannot be read: Not a directory");
}

void set_mtime(const std::string& path, int64_t s, long ns) {
  struct timespec times[2] = {{static_cast<time_t>(s), ns}, {static_cast<time_t>(s), ns}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// An mtime past 2262 (tv_sec * 1e9 overflows int64): the plain product was
// undefined behaviour, and a year-2610 mtime wrapped onto a 2025 time and
// entered the pace. Saturated now, and no time to read a pace from.
TEST(DataFollower, AFarFutureMtimeIsNoTimeAndNoOverflow) {
  // tmpfs keeps any 64-bit mtime; ext4 would clamp this one to 2446.
  char tmpl[] = "/dev/shm/gt_test_XXXXXX";
  const bool shm = ::mkdtemp(tmpl) != nullptr;
  TempTree fallback;
  const std::string dir = shm ? std::string(tmpl) : fallback.path("/out");
  std::filesystem::create_directories(dir);
  const int64_t base_s = 1764585600;
  const std::string good = gzip_of(std::string(100, 'a'));
  for (int i = 0; i < 3; ++i) {
    const std::string f = dir + "/sample_0000" + std::to_string(i) + ".gz";
    write_file(f, good);
    set_mtime(f, base_s + 60 * i, 0);
  }
  // (base_s + 30 + 18446744073) * 1e9 + 709551616 is 2^64 past base_s + 30 s.
  const std::string far = dir + "/sample_00003.gz";
  write_file(far, good);
  set_mtime(far, base_s + 30 + 18446744073, 709551616);
  DataFollower d(dir, std::nullopt, (base_s + 200) * 1000);
  d.poll((base_s + 200) * 1000);
  if (shm) std::filesystem::remove_all(dir);
  ASSERT_TRUE(d.progress().previous_per_min.has_value());
  EXPECT_DOUBLE_EQ(*d.progress().previous_per_min, 1.0) << "one file a minute; the far one is none";
}

// CI: a loaded node's tick saw three new files written 0.5 s apart at once;
// the pace, read from when a tick saw them, was unknown (a span of 0), the
// stall waited on the baseline's 10 s interval (50 s) and the watch test
// timed out. The pace comes from when the files were written.
TEST(DataFollower, FilesSeenInOneTickKeepThePaceTheyWereWrittenAt) {
  TempTree t;
  const std::string dir = t.path("/out");
  std::filesystem::create_directories(dir);
  const int64_t base_s = 1764585600;
  const std::string good = gzip_of(std::string(100, 'a'));
  for (int i = 0; i < 30; ++i) {  // the job before: one each 10 s
    const std::string f = dir + "/sample_000" + (i < 10 ? "0" : "") + std::to_string(i) + ".gz";
    write_file(f, good);
    set_mtime(f, base_s - 300 + 10 * i, 0);
  }
  const int64_t t0 = base_s * 1000;
  DataFollower d(dir, 100, t0);
  d.poll(t0);
  for (int i = 30; i < 33; ++i) {
    const std::string f = dir + "/sample_000" + std::to_string(i) + ".gz";
    write_file(f, good);
    set_mtime(f, base_s + 1 + (i - 30) / 2, 500000000L * ((i - 30) % 2));  // 0.5 s apart
  }
  d.poll(t0 + 1200);
  d.poll(t0 + 1200 + DataFollower::kSettleS * 1000);  // all three verified in one tick
  EXPECT_EQ(d.progress().new_intact, 3u);
  ASSERT_TRUE(d.progress().per_min.has_value());
  EXPECT_DOUBLE_EQ(*d.progress().per_min, 120.0);
  // Quiet for the minimum stall (10 s; 5 x 0.5 s is less): a stall.
  const int64_t last = t0 + 1200 + DataFollower::kSettleS * 1000;
  EXPECT_TRUE(d.poll(last + 9000).empty());
  std::vector<Change> stall = d.poll(last + 11000);
  ASSERT_EQ(stall.size(), 1u);
  EXPECT_EQ(stall[0].kind, ChangeKind::kStall);
  EXPECT_NE(stall[0].text.find("usual interval"), std::string::npos) << stall[0].text;
}

// Files moved in with old mtimes (or one from a skewed clock) give no
// written-at pace: the times watch saw them are used.
TEST(DataFollower, OldOrFutureMtimesFallBackToWhenTheFilesWereSeen) {
  TempTree t;
  const std::string dir = t.path("/out");
  std::filesystem::create_directories(dir);
  const int64_t base_s = 1764585600;
  const int64_t t0 = base_s * 1000;
  DataFollower d(dir, std::nullopt, t0);
  d.poll(t0);
  const std::string good = gzip_of(std::string(100, 'a'));
  write_file(dir + "/a.gz", good);
  set_mtime(dir + "/a.gz", base_s - 86400, 0);  // a day old: moved in
  d.poll(t0 + 1000);
  d.poll(t0 + 1000 + DataFollower::kSettleS * 1000);
  write_file(dir + "/b.gz", good);
  set_mtime(dir + "/b.gz", base_s + 5, 0);
  d.poll(t0 + 7000);
  d.poll(t0 + 7000 + DataFollower::kSettleS * 1000);
  ASSERT_TRUE(d.progress().per_min.has_value());
  EXPECT_DOUBLE_EQ(*d.progress().per_min, 10.0) << "seen 6 s apart, not a day apart";
}

}  // namespace follow_test
}  // namespace gt
