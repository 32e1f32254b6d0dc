#include "util/path_in_root.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "util/test_util.h"

namespace gt {
namespace path_in_root_test {

std::string resolved(const FsRoot& root, const std::string& p) {
  Result<PathInRoot> r = resolve_in_root(root, p);
  if (!r) return "error: " + r.error().message;
  return r->path + (r->exists ? "" : " (missing)");
}

TEST(PathInRoot, AbsoluteLinksAreReadFromTheRoot) {
  TempTree t;
  t.write("/mnt/nvme0/data/x", "1");
  t.symlink("/mnt/nvme0/data", "/data");  // absolute: the tree's /mnt, not the host's
  t.symlink("../dev/shm", "/tmp/x");
  t.write("/dev/shm/.keep", "");
  EXPECT_EQ(resolved(t.root(), "/data"), "/mnt/nvme0/data");
  EXPECT_EQ(resolved(t.root(), "/data/x"), "/mnt/nvme0/data/x");
  EXPECT_EQ(resolved(t.root(), "/tmp/x"), "/dev/shm");
  EXPECT_EQ(resolve_in_root(t.root(), "/data")->links_followed, 1);
}

TEST(PathInRoot, DotDotIsOfTheTargetAndNeverAboveTheRoot) {
  TempTree t;
  t.write("/mnt/nvme0/data/x", "1");
  t.write("/etc/fstab", "");
  t.symlink("/mnt/nvme0/data", "/data");
  EXPECT_EQ(resolved(t.root(), "/mnt/nvme0/../etc"), "/mnt/etc (missing)");
  EXPECT_EQ(resolved(t.root(), "/mnt/nvme0/../../etc"), "/etc");
  EXPECT_EQ(resolved(t.root(), "/data/../x"), "/mnt/nvme0/x (missing)");
  EXPECT_EQ(resolved(t.root(), "/../../../etc/fstab"), "/etc/fstab");
  t.symlink("../../../../../../etc", "/mnt/up");  // cannot leave the tree
  EXPECT_EQ(resolved(t.root(), "/mnt/up/fstab"), "/etc/fstab");
  EXPECT_EQ(resolved(t.root(), "//mnt/./nvme0//"), "/mnt/nvme0");
  EXPECT_EQ(resolved(t.root(), "/"), "/");
}

TEST(PathInRoot, TheMissingTailIsKeptAsWritten) {
  TempTree t;
  t.write("/mnt/nvme0/.keep", "");
  t.symlink("/mnt/nvme0/data", "/data");  // dangling: the folder is not made yet
  EXPECT_EQ(resolved(t.root(), "/data/run-1/../run-2"), "/mnt/nvme0/data/run-2 (missing)");
  EXPECT_EQ(resolved(t.root(), "/mnt/nvme0/.keep/x"), "/mnt/nvme0/.keep/x (missing)");
  // Back above the missing part, links are followed again (where mkdir -p
  // would put it), so a resolution resolves to itself.
  t.symlink("nvme0", "/mnt/link");
  EXPECT_EQ(resolved(t.root(), "/new/../mnt/link"), "/mnt/nvme0");
  EXPECT_EQ(resolved(t.root(), "/mnt/nvme0"), "/mnt/nvme0");
}

TEST(PathInRoot, LoopsAndBadPathsAreErrors) {
  TempTree t;
  t.symlink("/b", "/a");
  t.symlink("/a", "/b");
  EXPECT_EQ(resolved(t.root(), "/a/x"),
            "error: cannot resolve /a/x: too many levels of symbolic links");
  EXPECT_EQ(resolve_in_root(t.root(), "data").error().kind, ErrorKind::kMalformed);
  EXPECT_EQ(resolve_in_root(t.root(), "").error().kind, ErrorKind::kMalformed);
  EXPECT_EQ(resolve_in_root(t.root(), "/" + std::string(5000, 'a')).error().kind,
            ErrorKind::kMalformed);
  EXPECT_EQ(resolve_in_root(t.root(), std::string("/a\0b", 4)).error().kind, ErrorKind::kMalformed);
  // 40 links in a chain resolve; the 41st is the kernel's ELOOP.
  for (int i = 0; i < 41; ++i) t.symlink("/l" + std::to_string(i + 1), "/l" + std::to_string(i));
  t.write("/l41", "");
  EXPECT_EQ(resolved(t.root(), "/l1"), "/l41");
  EXPECT_FALSE(resolve_in_root(t.root(), "/l0"));
}

// A component lstat cannot answer for (other than "not there") is an
// error, never taken as missing.
TEST(PathInRoot, WhatCannotBeLookedUpIsAnErrorNotAGuess) {
  TempTree t;
  Result<PathInRoot> r = resolve_in_root(t.root(), "/" + std::string(300, 'n') + "/x");
  ASSERT_FALSE(r);  // ENAMETOOLONG: a component over NAME_MAX
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  if (::geteuid() == 0) return;  // root searches any folder
  t.write("/locked/x", "");
  ::chmod(t.path("/locked").c_str(), 0);
  r = resolve_in_root(t.root(), "/locked/x");
  ::chmod(t.path("/locked").c_str(), 0755);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kPermissionDenied);
}

TEST(PathInRoot, TheLiveRootIsTheKernelsResolution) {
  TempTree t;
  t.write("/d/f", "");
  ASSERT_EQ(::symlink((t.dir() + "/d").c_str(), (t.dir() + "/l").c_str()), 0);
  Result<PathInRoot> r = resolve_in_root(FsRoot("/"), t.dir() + "/l/f");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->exists);
  char* real = ::realpath((t.dir() + "/l/f").c_str(), nullptr);
  EXPECT_EQ(r->path, real);
  ::free(real);
}

}  // namespace path_in_root_test
}  // namespace gt
