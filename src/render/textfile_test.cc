#include "render/textfile.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gt {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gt-textfile.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Textfile, WritesAndReplacesLeavingNoTemporaryFile) {
  TempDir d;
  ASSERT_TRUE(write_textfile_atomically(d.path, "a 1\n"));
  ASSERT_TRUE(write_textfile_atomically(d.path, "a 2\n"));
  EXPECT_EQ(read(d.path / "gpu-triage.prom"), "a 2\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  struct stat st;
  ASSERT_EQ(stat((d.path / "gpu-triage.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(Textfile, MissingDirectoryIsAnError) {
  Status s = write_textfile_atomically("/nonexistent/gt-dir", "a 1\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("/nonexistent/gt-dir/.gpu-triage.prom."), std::string::npos);
}

TEST(Textfile, RenameFailureKeepsTheOldFileAndRemovesTheTemporary) {
  TempDir d;
  // A directory where the file should go: rename fails, nothing else changes.
  fs::create_directory(d.path / "gpu-triage.prom");
  fs::create_directory(d.path / "gpu-triage.prom" / "x");
  Status s = write_textfile_atomically(d.path, "a 1\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("cannot rename"), std::string::npos);
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace gt
