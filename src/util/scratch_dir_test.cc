#include "util/scratch_dir.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gt {
namespace {

namespace fs = std::filesystem;

/// A tree a replay leaves: folders, files, a link to a folder outside.
void fill(const std::string& dir) {
  fs::create_directories(dir + "/root/proc/1/task/1");
  std::ofstream(dir + "/root/proc/1/stat") << "1 (init) S";
  std::ofstream(dir + "/report.json") << "{}";
  fs::create_directory_symlink("/", dir + "/root/up");
}

TEST(ScratchDir, RemovedWhenItGoes) {
  std::string path;
  {
    Result<std::unique_ptr<ScratchDir>> d = ScratchDir::make("gt-scratch-test");
    ASSERT_TRUE(d);
    path = (*d)->path();
    fill(path);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::exists("/proc"));  // the link's target is untouched
}

// A process ended by SIGTERM (or ^C) mid-replay removes its tree and still
// dies of the signal.
TEST(ScratchDir, RemovedWhenASignalEndsTheProcess) {
  for (int sig : {SIGTERM, SIGINT}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);
      Result<std::unique_ptr<ScratchDir>> d = ScratchDir::make("gt-scratch-test");
      if (!d) ::_exit(2);
      fill((*d)->path());
      const std::string& p = (*d)->path();
      if (::write(fds[1], p.c_str(), p.size()) < 0) ::_exit(3);
      ::close(fds[1]);
      ::raise(sig);
      ::_exit(4);  // not reached: the signal ends it
    }
    ::close(fds[1]);
    char buf[4096] = {};
    ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_GT(n, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(std::string(buf, static_cast<size_t>(n)))) << buf;
  }
}

}  // namespace
}  // namespace gt
