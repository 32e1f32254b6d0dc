#include "util/fs_space.h"

#include <gtest/gtest.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

namespace gt {
namespace fs_space_test {

TEST(FsSpace, MatchesStatvfs) {
  Result<FsSpace> s = read_fs_space("/tmp", "/tmp");
  ASSERT_TRUE(s) << s.error().message;
  struct statvfs v;
  ASSERT_EQ(::statvfs("/tmp", &v), 0);
  EXPECT_EQ(s->total_bytes, uint64_t(v.f_blocks) * v.f_frsize);
  EXPECT_GT(s->total_bytes, 0u);
  EXPECT_LE(s->available_bytes, s->total_bytes);
  EXPECT_EQ(s->inodes_total.has_value(), v.f_files > 0);
  // free_bytes is the same number (give or take others writing meanwhile).
  std::optional<uint64_t> free = free_bytes("/tmp");
  ASSERT_TRUE(free.has_value());
  EXPECT_LE(*free, s->total_bytes);
}

TEST(FsSpace, MissingPathIsAnErrorNamedAsGiven) {
  Result<FsSpace> s = read_fs_space("/root-of-fixture/no/such/dir", "/no/such/dir");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(s.error().message, std::string("cannot read /no/such/dir: ") + std::strerror(ENOENT));
  EXPECT_EQ(free_bytes("/no/such/dir"), std::nullopt);
}

}  // namespace fs_space_test
}  // namespace gt
