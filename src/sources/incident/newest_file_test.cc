// The newest file under a --path: bounded walk, future-dated files counted.
#include "sources/incident/newest_file.h"

#include <gtest/gtest.h>
#include <utime.h>

#include "util/test_util.h"

namespace gt {
namespace newest_file_test {

void set_mtime(const TempTree& t, const std::string& p, int64_t mtime) {
  struct utimbuf u {
    mtime, mtime
  };
  ASSERT_EQ(::utime(t.path(p).c_str(), &u), 0);
}

TEST(FindNewestFile, NewestRegularFileAndFutureOnesCounted) {
  TempTree t;
  t.write("/data/a.bin", "x");
  t.write("/data/run/samples/s1.jsonl", "x");
  t.write("/data/run/samples/s2.jsonl", "x");
  t.write("/data/run/late.bin", "x");
  set_mtime(t, "/data/a.bin", 1000);
  set_mtime(t, "/data/run/samples/s1.jsonl", 2000);
  set_mtime(t, "/data/run/samples/s2.jsonl", 3000);
  set_mtime(t, "/data/run/late.bin", 99999);  // in the future for now=5000
  ClockState c;
  NewestFile nf = find_newest_file(t.root(), "/data", 5000, {}, c);
  EXPECT_EQ(nf.path, "/data/run/samples/s2.jsonl");
  EXPECT_EQ(nf.mtime_unix_s, 3000);
  EXPECT_FALSE(nf.capped);
  EXPECT_EQ(c.future_files, 1u);
  EXPECT_EQ(c.future_example, "/data/run/late.bin");
}

TEST(FindNewestFile, CapsAreSaid) {
  TempTree t;
  for (int i = 0; i < 10; ++i) t.write("/d/f" + std::to_string(i), "x");
  t.write("/d/a/b/c/deep", "x");
  ClockState c;
  WalkLimits few;
  few.max_entries = 3;
  NewestFile nf = find_newest_file(t.root(), "/d", std::nullopt, few, c);
  EXPECT_TRUE(nf.capped);
  EXPECT_EQ(nf.entries_seen, 3u);
  WalkLimits shallow;
  shallow.max_depth = 1;
  NewestFile s = find_newest_file(t.root(), "/d", std::nullopt, shallow, c);
  EXPECT_TRUE(s.capped);
  EXPECT_EQ(c.future_files, 0u);  // no now: nothing is in the future
}

TEST(FindNewestFile, MissingDirIsAnError) {
  TempTree t;
  ClockState c;
  NewestFile nf = find_newest_file(t.root(), "/nope", 1, {}, c);
  ASSERT_TRUE(nf.error);
  EXPECT_FALSE(nf.path);
}

// Issue 32: a --path that is a link in the tree names a directory of the
// tree; this machine's directory at the link's target is never walked.
TEST(FindNewestFile, ALinkedTopIsResolvedInTheRoot) {
  TempTree host;
  host.write("/secret/newest.bin", "x");
  TempTree t;
  t.symlink(host.path("/secret"), "/data");
  ClockState c;
  NewestFile nf = find_newest_file(t.root(), "/data", std::nullopt, {}, c);
  EXPECT_TRUE(nf.error);
  EXPECT_FALSE(nf.path);
  t.write(host.path("/secret") + "/inside.bin", "x");
  NewestFile in = find_newest_file(t.root(), "/data", std::nullopt, {}, c);
  EXPECT_EQ(in.path, "/data/inside.bin");
}

}  // namespace newest_file_test
}  // namespace gt
