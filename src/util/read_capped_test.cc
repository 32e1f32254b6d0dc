#include "util/read_capped.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/test_util.h"

namespace gt {
namespace read_capped_test {

TEST(ReadCapped, ReadsASmallFileWhole) {
  TempTree t;
  t.write("/a.txt", "hello\n");
  Result<std::string> r = read_file_capped(t.path("/a.txt"), 1024, "a test");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "hello\n");
}

TEST(ReadCapped, RefusesAnEndlessDeviceAsNotARegularFile) {
  Result<std::string> r = read_file_capped("/dev/zero", 1 << 20, "nvidia-smi captures");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "/dev/zero is not a regular file: nvidia-smi captures are read from one");
}

TEST(ReadCapped, MissingFileNamesThePath) {
  Result<std::string> r = read_file_capped("/nonexistent/x", 10, "a test");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(r.error().message.find("cannot open /nonexistent/x"), std::string::npos);
}

TEST(ReadCapped, ExactlyAtTheLimitIsRead) {
  TempTree t;
  t.write("/b", std::string(4096, 'x'));
  EXPECT_TRUE(read_file_capped(t.path("/b"), 4096, "a test"));
  EXPECT_FALSE(read_file_capped(t.path("/b"), 4095, "a test"));
}

}  // namespace read_capped_test
}  // namespace gt
