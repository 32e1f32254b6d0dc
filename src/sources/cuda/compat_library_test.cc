#include "sources/cuda/compat_library.h"

#include <gtest/gtest.h>

#include "sources/cuda/library_search.h"
#include "util/test_util.h"

namespace gt {
namespace {

constexpr const char* kLib = "/usr/lib/x86_64-linux-gnu";
constexpr const char* kCompat = "/usr/local/cuda-12.2/compat/libcuda.so.535.261.03";

/// A container's mountinfo with the toolkit's bind mount of the image's
/// compat libcuda over the standard library directory (proc(5) fields).
std::string bind_mountinfo(const std::string& target) {
  return "1290 1180 0:52 / / rw,relatime master:419 - overlay overlay "
         "rw,lowerdir=/var/lib/docker/overlay2/l/A,upperdir=/var/lib/docker/overlay2/B/diff\n"
         "1310 1290 0:52 /usr/local/cuda-12.2/compat/libcuda.so.535.261.03 " +
         target + " ro,nosuid,nodev,relatime master:419 - overlay overlay rw\n";
}

ResolvedLibrary resolve_libcuda(const TempTree& t) {
  return resolve_library(t.root(), read_loader_files(t.root()), {}, "libcuda.so.1");
}

TEST(CompatLibrary, ABindMountOfACompatFileIsCompatWhereverItSits) {
  TempTree t;
  t.write(std::string(kLib) + "/libcuda.so.1", "ELF compat build");
  t.write("/proc/self/mountinfo", bind_mountinfo(std::string(kLib) + "/libcuda.so.1"));
  const ResolvedLibrary l = resolve_libcuda(t);
  EXPECT_TRUE(l.compat);
  ASSERT_TRUE(l.compat_from);
  EXPECT_NE(l.compat_from->find(std::string("a bind mount of ") + kCompat), std::string::npos);
}

TEST(CompatLibrary, TheSameBytesAsACompatFileIsCompat) {
  TempTree t;
  t.write(kCompat, "ELF compat build 535");
  t.write(std::string(kLib) + "/libcuda.so.535.261.03", "ELF compat build 535");
  t.symlink("libcuda.so.535.261.03", std::string(kLib) + "/libcuda.so.1");
  const ResolvedLibrary l = resolve_libcuda(t);
  EXPECT_TRUE(l.compat);
  EXPECT_EQ(l.compat_from, std::string("the same file (size and bytes) as ") + kCompat);
}

TEST(CompatLibrary, TheDriversOwnLibraryIsNot) {
  TempTree t;
  t.write(kCompat, "ELF compat build 535");
  // Same size, other bytes; and a bind mount of something else.
  t.write(std::string(kLib) + "/libcuda.so.535.261.03", "ELF driver build 535");
  t.symlink("libcuda.so.535.261.03", std::string(kLib) + "/libcuda.so.1");
  t.write("/proc/self/mountinfo",
          "1310 1290 0:52 /srv/lib/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 ro - "
          "ext4 /dev/sda1 rw\n");
  const ResolvedLibrary l = resolve_libcuda(t);
  EXPECT_FALSE(l.compat);
  EXPECT_EQ(l.compat_from, std::nullopt);
}

TEST(CompatLibrary, TheCompatDirectoryItself) {
  EXPECT_TRUE(in_compat_dir("/usr/local/cuda-12.8/compat/libcuda.so.570.124.06"));
  EXPECT_TRUE(in_compat_dir("/usr/local/cuda/compat/lib.real/libcuda.so.1"));
  EXPECT_FALSE(in_compat_dir("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  EXPECT_FALSE(in_compat_dir("/opt/compatibility/libcuda.so.1"));
}

}  // namespace
}  // namespace gt
