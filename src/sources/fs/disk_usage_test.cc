#include "sources/fs/disk_usage.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace gt {
namespace disk_usage_test {

// `--path /data` on the filesystem of `/` keeps its own entry (issue 12):
// the operator asked about it, so it is answered, numbers and all.
TEST(DiskUsage, EveryPathKeepsItsEntryOnASharedFilesystem) {
  TempTree t;
  t.write("/data/x", "1");
  std::vector<DiskUsage> d = read_disk_usage(t.root(), {"/", "/data", "/data", "/missing"});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].path, "/");
  EXPECT_FALSE(d[0].same_filesystem_as);
  EXPECT_TRUE(d[0].total_bytes && d[0].available_bytes);
  EXPECT_EQ(d[1].path, "/data");
  EXPECT_EQ(d[1].same_filesystem_as, "/");
  EXPECT_EQ(d[1].total_bytes, d[0].total_bytes);
  EXPECT_TRUE(d[1].available_bytes);
  EXPECT_EQ(d[2].path, "/missing");
  ASSERT_TRUE(d[2].error);
  EXPECT_NE(d[2].error->find("No such file"), std::string::npos) << *d[2].error;
}

// Issue 32: an absolute link in a --root tree is the tree's, never this
// machine's: the space read is the filesystem the link leads to in the tree.
TEST(DiskUsage, LinksAreFollowedInsideTheRoot) {
  TempTree t;
  t.write("/mnt/nvme0/data/x", "1");
  t.symlink("/mnt/nvme0/data", "/data");
  t.symlink("/nonexistent-on-this-machine", "/gone");
  std::vector<DiskUsage> d = read_disk_usage(t.root(), {"/data", "/gone"});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_FALSE(d[0].error) << *d[0].error;
  EXPECT_TRUE(d[0].total_bytes);
  ASSERT_TRUE(d[1].error);
  EXPECT_NE(d[1].error->find("No such file"), std::string::npos) << *d[1].error;
}

// A fixture tree (the story's 15 TB /data) gives its filesystems' figures
// in .gt-fixture/statvfs: each path takes its longest listed mount, never
// this machine's statvfs; a path that is not there is still an error.
TEST(DiskUsage, AFixtureTreeSaysItsOwnFilesystems) {
  TempTree t;
  t.write("/data/run/x", "1");
  t.write("/.gt-fixture/statvfs",
          "/ 211234201600 161061273600 13107200 12900000\n"
          "/data 15124000000000 13100000000000 - -\n");
  std::vector<DiskUsage> d = read_disk_usage(t.root(), {"/", "/data/run", "/data", "/gone"});
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].total_bytes, 211234201600u);
  EXPECT_EQ(d[0].inodes_available, 12900000u);
  EXPECT_EQ(d[1].total_bytes, 15124000000000u);
  EXPECT_FALSE(d[1].inodes_total);  // "-": no inode limit, unknown
  EXPECT_FALSE(d[1].same_filesystem_as);
  EXPECT_EQ(d[2].same_filesystem_as, "/data/run");
  ASSERT_TRUE(d[3].error);
  EXPECT_NE(d[3].error->find("No such file"), std::string::npos) << *d[3].error;
}

TEST(DiskUsage, AMalformedFixtureIsSaidOnEveryPath) {
  TempTree t;
  t.write("/.gt-fixture/statvfs", "/ lots\n");
  std::vector<DiskUsage> d = read_disk_usage(t.root(), {"/"});
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(d[0].error);
  EXPECT_NE(d[0].error->find(".gt-fixture/statvfs"), std::string::npos) << *d[0].error;
  EXPECT_FALSE(d[0].total_bytes);
}

}  // namespace disk_usage_test
}  // namespace gt
