#include "util/errno_error.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gt {
namespace errno_error_test {

TEST(ErrnoError, OneClassification) {
  EXPECT_EQ(errno_kind(ENOENT), ErrorKind::kNotFound);
  EXPECT_EQ(errno_kind(ENOTDIR), ErrorKind::kNotFound);
  EXPECT_EQ(errno_kind(ESRCH), ErrorKind::kNotFound);
  EXPECT_EQ(errno_kind(EACCES), ErrorKind::kPermissionDenied);
  EXPECT_EQ(errno_kind(EPERM), ErrorKind::kPermissionDenied);
  EXPECT_EQ(errno_kind(EROFS), ErrorKind::kIo);
  EXPECT_EQ(errno_kind(EIO), ErrorKind::kIo);
  EXPECT_EQ(errno_kind(0), ErrorKind::kIo);
}

TEST(ErrnoError, MessageIsWhatThenTheSystemsWords) {
  Error e = errno_error(ENOENT, "cannot open /x");
  EXPECT_EQ(e.kind, ErrorKind::kNotFound);
  EXPECT_EQ(e.message, std::string("cannot open /x: ") + std::strerror(ENOENT));
}

TEST(ErrnoError, FromARealFailedCall) {
  // A path below a regular file: the kernel says ENOTDIR, which is "not there".
  char tmpl[] = "/tmp/gt-errno-XXXXXX";
  int fd = ::mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const std::string below = std::string(tmpl) + "/child";
  ASSERT_LT(::open(below.c_str(), O_RDONLY), 0);
  Error e = errno_error(errno, "cannot open " + below);
  ::unlink(tmpl);
  EXPECT_EQ(e.kind, ErrorKind::kNotFound);
  EXPECT_EQ(e.message, "cannot open " + below + ": " + std::strerror(ENOTDIR));
}

}  // namespace errno_error_test
}  // namespace gt
