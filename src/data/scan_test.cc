#include "data/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "data/data_test_util.h"
#include "data/verify.h"
#include "util/test_util.h"

namespace gt {
namespace scan_test {

// A real SpecForge file with one bit flipped inside data_0/data/2: only
// its CRC32 tells.
std::string flipped_sample() {
  std::string bytes = real_fixture("torch/specforge/rows_0-4/data_0.ckpt");
  bytes[1100] ^= 0x01;
  return bytes;
}

void set_mtime(const std::string& path, int64_t t) {
  struct timeval tv[2] = {{t, 0}, {t, 0}};
  ASSERT_EQ(::utimes(path.c_str(), tv), 0);
}

// A flipped bit inside tensor data passes quick mode's structure checks.
// The files written in the window before the newest one get the CRC check
// anyway; an older file does not, and the scan says how many were checked.
TEST(DataScanTest, QuickModeDeepChecksTheRecentFiles) {
  TempTree t;
  const std::string bytes = flipped_sample();
  t.write("/d/data_0.pt", bytes);
  t.write("/d/data_1.pt", bytes);
  t.write("/d/data_2.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  set_mtime(t.path("/d/data_0.pt"), 1'000'000 + 85'400);  // 1000 s before the newest
  set_mtime(t.path("/d/data_1.pt"), 1'000'000 + 86'000);  // recent
  set_mtime(t.path("/d/data_2.pt"), 1'000'000 + 86'400);  // newest
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->files.size(), 3u);
  EXPECT_EQ(s->files[0].verdict, FileVerdict::kIntact);  // old: not CRC-checked
  EXPECT_FALSE(s->files[0].crc_checked);
  EXPECT_EQ(s->files[1].verdict, FileVerdict::kBad);
  EXPECT_EQ(s->files[1].code, ProblemCode::kChecksum);
  EXPECT_TRUE(s->files[2].crc_checked);
  ASSERT_TRUE(s->recent);
  EXPECT_EQ(s->recent->files, 2u);
  EXPECT_EQ(*s->recent->newest_unix_s, 1'000'000 + 86'400);
  // --recent 0: quick mode as before; --deep: both flipped files.
  o.recent_window_s = 0;
  s = scan_dirs(o);
  EXPECT_EQ(s->files[1].verdict, FileVerdict::kIntact);
  o.deep = true;
  s = scan_dirs(o);
  EXPECT_EQ(s->files[0].code, ProblemCode::kChecksum);
  EXPECT_EQ(s->files[1].code, ProblemCode::kChecksum);
  EXPECT_FALSE(s->recent);
}

// The window is the samples': a progress.json written an hour after the
// job stopped does not move it off the damaged last sample (issue 31).
TEST(DataScanTest, ANewerFileThatIsNoSampleDoesNotMoveTheWindow) {
  TempTree t;
  const std::string bytes = flipped_sample();
  t.write("/d/data_0.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  t.write("/d/data_1.pt", bytes);
  t.write("/d/progress.json", "{}");
  set_mtime(t.path("/d/data_0.pt"), 1'000'000);
  set_mtime(t.path("/d/data_1.pt"), 1'000'010);
  set_mtime(t.path("/d/progress.json"), 1'003'600);
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->layout.kind, Layout::kSpeculators);
  EXPECT_EQ(s->files[1].code, ProblemCode::kChecksum);
  ASSERT_TRUE(s->recent);
  EXPECT_EQ(s->recent->anchors,
            (std::vector<RecentAnchor>{{AnchorKind::kNewestSample, 1'000'010}}));
  EXPECT_EQ(*s->recent->newest_unix_s, 1'000'010);
}

// The crash time, when the incident timeline knows it, is a window of its
// own: a file written just before it is read whole though newer ones exist.
TEST(DataScanTest, TheCrashTimeAnchorsAWindowToo) {
  TempTree t;
  const std::string bytes = flipped_sample();
  t.write("/d/data_0.pt", bytes);
  t.write("/d/data_1.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  t.write("/d/data_2.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  set_mtime(t.path("/d/data_0.pt"), 1'000'000);
  set_mtime(t.path("/d/data_1.pt"), 1'000'800);
  set_mtime(t.path("/d/data_2.pt"), 1'001'600);  // no pause: data_0 is outside its window
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->files[0].verdict, FileVerdict::kIntact);
  o.crash_unix_s = 1'000'100;
  s = scan_dirs(o);
  EXPECT_EQ(s->files[0].code, ProblemCode::kChecksum);
  ASSERT_EQ(s->recent->anchors.size(), 2u);
  EXPECT_EQ(s->recent->anchors[1], (RecentAnchor{AnchorKind::kCrash, 1'000'100}));
}

// Before any file is opened, quick mode guesses its window from the
// folder's mtime (when a file was last created there), so a file in it is
// checked whole on its one open. A file the guess takes in beyond the
// window is checked whole too (a flipped bit found is said), and one the
// guess leaves out (a big one written long after the folder changed) is
// opened again and checked whole.
TEST(DataScanTest, TheFolderMtimeGuessesTheWindowBeforeAnyFileIsOpened) {
  TempTree t;
  const std::string bad = flipped_sample();
  t.write("/d/data_0.pt", bad);
  t.write("/d/data_1.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  std::string big = big_torch_zip();
  ASSERT_GT(big.size(), kReadWholeBytes);
  big[big.size() / 2] ^= 0x01;  // inside tensor data: only a CRC tells
  t.write("/d/data_2.pt", big);
  set_mtime(t.path("/d/data_0.pt"), 1'000'000);  // in the guess, not the window
  set_mtime(t.path("/d/data_1.pt"), 1'000'800);  // in both
  set_mtime(t.path("/d/data_2.pt"), 1'001'600);  // big, the newest: in the window, not the guess
  set_mtime(t.path("/d"), 1'000'000);            // the guess: 999,100 to 1,000,900
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->files.size(), 3u);
  EXPECT_EQ(s->files[0].code, ProblemCode::kChecksum);
  EXPECT_TRUE(s->files[0].crc_checked);
  EXPECT_EQ(s->files[1].verdict, FileVerdict::kIntact);
  EXPECT_TRUE(s->files[1].crc_checked);
  EXPECT_EQ(s->files[2].code, ProblemCode::kChecksum);
  EXPECT_TRUE(s->files[2].crc_checked);
  EXPECT_FALSE(s->files[2].changed);
  ASSERT_TRUE(s->recent);
  EXPECT_EQ(s->recent->files, 2u);  // the window's: data_1 and data_2
}

// A sample's name that is no regular file (a directory, a FIFO, a link made
// there later) is no write of the job's: it anchors no window, so three of
// them made after the job stopped do not take the newest anchor and both
// pause anchors away from the damaged last sample (trial of issue 51).
TEST(DataScanTest, NamesThatAreNoRegularFileAnchorNoWindow) {
  TempTree t;
  t.write("/d/data_0.pt", real_fixture("torch/specforge/rows_0-4/data_1.ckpt"));
  t.write("/d/data_1.pt", flipped_sample());
  set_mtime(t.path("/d/data_0.pt"), 1'000'000);
  set_mtime(t.path("/d/data_1.pt"), 1'000'060);  // the job's last sample
  for (int k = 2; k <= 4; ++k) {
    const std::string p = t.path("/d/data_" + std::to_string(k) + ".pt");
    ASSERT_EQ(::mkdir(p.c_str(), 0700), 0);
    set_mtime(p, 1'000'060 + 3600 * (k - 1));  // an hour apart, after the job
  }
  ScanOptions o;
  o.dirs = {t.path("/d")};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->files.size(), 5u);
  EXPECT_EQ(s->files[1].code, ProblemCode::kChecksum);
  for (size_t k = 2; k < 5; ++k) EXPECT_EQ(s->files[k].code, ProblemCode::kNotRegular);
  ASSERT_TRUE(s->recent);
  EXPECT_EQ(s->recent->anchors,
            (std::vector<RecentAnchor>{{AnchorKind::kNewestSample, 1'000'060}}));
}

// Removes `name` under `dirfd` and everything in it, by name from each
// folder (std::filesystem cannot name a path over PATH_MAX).
void remove_at(int dirfd, const char* name) {
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    DIR* d = ::fdopendir(fd);
    std::vector<std::string> names;
    while (dirent* e = d ? ::readdir(d) : nullptr)
      if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..")
        names.emplace_back(e->d_name);
    for (const std::string& n : names)
      if (::unlinkat(::dirfd(d), n.c_str(), 0) != 0) remove_at(::dirfd(d), n.c_str());
    if (d) ::closedir(d);
  }
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

// 600 folders (more than the 512 a scan once held open) under a prefix
// longer than PATH_MAX: each file is still opened from its held folder,
// never by its whole path (ENAMETOOLONG: intact files called unreadable and
// sent to be redone; trial of issue 51). Made with mkdirat/openat: the whole
// path cannot be named.
TEST(DataScanTest, ManyFoldersUnderAPathLongerThanPathMaxAreAllRead) {
  struct rlimit rl {};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_max < 1024) GTEST_SKIP() << "open-file hard limit " << rl.rlim_max << " < 1024";
  TempTree t;
  const std::string bytes = real_fixture("torch/speculators/data_0.pt");
  int fd = ::open(t.dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string level(30, 'p');
  for (int depth = 0; depth < 140; ++depth) {  // 140 x 31 bytes: past 4096
    ASSERT_EQ(::mkdirat(fd, level.c_str(), 0755), 0);
    const int next = ::openat(fd, level.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    ASSERT_GE(fd = next, 0);
  }
  for (int k = 0; k < 600; ++k) {
    const std::string dir = "w" + std::to_string(k);
    ASSERT_EQ(::mkdirat(fd, dir.c_str(), 0755), 0);
    const std::string file = dir + "/data_" + std::to_string(k) + ".pt";
    const int f = ::openat(fd, file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(f, 0);
    ASSERT_EQ(::write(f, bytes.data(), bytes.size()), ssize_t(bytes.size()));
    ::close(f);
  }
  ::close(fd);
  ScanOptions o;
  o.dirs = {t.dir()};
  Result<DirScan> s = scan_dirs(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->files.size(), 600u);
  size_t intact = 0;
  for (const ScannedFile& f : s->files) intact += f.verdict == FileVerdict::kIntact;
  EXPECT_EQ(intact, 600u) << s->message(s->files.front());
  struct rlimit after {};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, rl.rlim_cur);  // the scan gave its raised limit back
  remove_at(AT_FDCWD, (t.dir() + "/" + level).c_str());
}

TEST(DataScanTest, AMillionEqualMessagesAreOneString) {
  TextPool pool;
  EXPECT_EQ(pool.intern("0 bytes"), pool.intern(std::string("0 ") + "bytes"));
  EXPECT_NE(pool.intern("0 bytes"), pool.intern("truncated"));
  EXPECT_EQ(pool.at(pool.intern("truncated")), "truncated");
}

}  // namespace scan_test
}  // namespace gt
