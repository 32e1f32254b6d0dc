#include "data/scan.h"

#include <gtest/gtest.h>
#include <sys/time.h>

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

TEST(DataScanTest, AMillionEqualMessagesAreOneString) {
  TextPool pool;
  EXPECT_EQ(pool.intern("0 bytes"), pool.intern(std::string("0 ") + "bytes"));
  EXPECT_NE(pool.intern("0 bytes"), pool.intern("truncated"));
  EXPECT_EQ(pool.at(pool.intern("truncated")), "truncated");
}

}  // namespace scan_test
}  // namespace gt
