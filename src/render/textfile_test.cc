#include "render/textfile.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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
  EXPECT_NE(s.error().message.find("temporary file in /nonexistent/gt-dir"), std::string::npos)
      << s.error().message;
}

TEST(Textfile, RenameFailureKeepsTheOldFileAndRemovesTheTemporary) {
  TempDir d;
  // A directory where the file should go: rename fails, nothing else changes.
  fs::create_directory(d.path / "gpu-triage.prom");
  fs::create_directory(d.path / "gpu-triage.prom" / "x");
  Status s = write_textfile_atomically(d.path, "a 1\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("cannot replace"), std::string::npos);
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

// A link planted at the output name, or at any name the temporary file could
// take, is never written through: the target outside keeps its content.
TEST(Textfile, PlantedLinksAreNeverWrittenThrough) {
  TempDir d, outside;
  const fs::path victim = outside.path / "victim";
  { std::ofstream(victim) << "precious\n"; }
  fs::create_symlink(victim, d.path / "gpu-triage.prom");
  // The old scheme's predictable name, and links at the mkstemp prefix.
  fs::create_symlink(victim, d.path / (".gpu-triage.prom." + std::to_string(::getpid())));
  fs::create_symlink(victim, d.path / ".gpu-triage.prom.tmpXXXXXX");
  ASSERT_TRUE(write_textfile_atomically(d.path, "a 1\n"));
  EXPECT_EQ(read(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(d.path / "gpu-triage.prom"));  // replaced, not followed
  EXPECT_EQ(read(d.path / "gpu-triage.prom"), "a 1\n");
}

}  // namespace
}  // namespace gt
