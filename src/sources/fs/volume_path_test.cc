#include "sources/fs/volume_path.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/test_util.h"

namespace gt {
namespace volume_path_test {

TEST(VolumePath, AbsoluteIsTheNodesResolvedInTheRoot) {
  TempTree t;
  t.write("/mnt/nvme0/data/x", "");
  t.symlink("/mnt/nvme0/data", "/data");
  Result<PathInRoot> r = volume_path(t.root(), "/data/x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->path, "/mnt/nvme0/data/x");
  EXPECT_TRUE(r->exists);
}

// A relative --path is this process's: from its working directory on this
// machine; under a --root tree it names nothing of the tree.
TEST(VolumePath, RelativeIsFromTheWorkingDirectoryOnThisMachineOnly) {
  TempTree t;
  t.write("/job/out/x", "");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(t.path("/job"));
  Result<PathInRoot> live = volume_path(FsRoot("/"), "out/../out/x");
  Result<PathInRoot> tree = volume_path(t.root(), "out");
  std::filesystem::current_path(before);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->path, std::filesystem::canonical(t.path("/job/out/x")).string());
  ASSERT_FALSE(tree);
  EXPECT_EQ(tree.error().kind, ErrorKind::kUnsupported);
  EXPECT_EQ(volume_path(FsRoot("/"), "").error().kind, ErrorKind::kMalformed);
}

}  // namespace volume_path_test
}  // namespace gt
