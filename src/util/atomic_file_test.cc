#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/test_util.h"

namespace gt {
namespace {

namespace fs = std::filesystem;

size_t entries(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += !e.path().empty();
  return n;
}

TEST(AtomicFile, ReplacesWithTheModeAndLeavesNoTemporary) {
  TempTree t;
  t.write("/d/f", "old");
  ASSERT_TRUE(write_file_atomically(t.path("/d/f"), "new\n", 0600));
  std::ifstream in(t.path("/d/f"));
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "new\n");
  struct stat st;
  ASSERT_EQ(::stat(t.path("/d/f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(entries(t.path("/d")), 1u);
}

TEST(AtomicFile, UncommittedLeavesTheOldFileAndNoTemporary) {
  TempTree t;
  t.write("/d/f", "old");
  {
    AtomicFile f(t.path("/d/f"));
    ASSERT_TRUE(f.write("half"));
    EXPECT_TRUE(fs::exists(f.temp_path()));
  }
  EXPECT_EQ(entries(t.path("/d")), 1u);
  Status s = write_file_atomically(t.path("/missing/f"), "x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("temporary file in"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace gt
