// Shared helpers for the unit tests.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "util/fs_root.h"

namespace gt {

/// A scratch directory standing in for "/", removed with its contents.
class TempTree {
 public:
  TempTree() {
    char tmpl[] = "/tmp/gt_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    ::chmod(dir_.c_str(), 0755);  // readable after a test drops root
  }
  ~TempTree() { std::filesystem::remove_all(dir_); }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  /// Writes `content` at abs_path under the tree, creating directories.
  void write(const std::string& abs_path, std::string_view content) const {
    std::filesystem::path p = dir_ + abs_path;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  /// Creates a symlink at abs_path pointing to `target` (verbatim).
  void symlink(const std::string& target, const std::string& abs_path) const {
    std::filesystem::create_directories(std::filesystem::path(dir_ + abs_path).parent_path());
    std::filesystem::create_symlink(target, dir_ + abs_path);
  }
  std::string path(const std::string& abs_path) const { return dir_ + abs_path; }
  const std::string& dir() const { return dir_; }
  FsRoot root() const { return FsRoot(dir_); }

 private:
  std::string dir_;
};

/// Writes /proc/PID/{stat,comm,cmdline,status,cgroup} under `t` for a
/// process started 1000+pid ticks after boot (flags: /proc stat field 9).
inline void fake_proc(const TempTree& t, uint32_t pid, uint32_t ppid, const std::string& comm,
                      const std::string& cmdline, uint32_t uid, const std::string& cgroup,
                      unsigned flags = 0x400100) {
  const std::string d = "/proc/" + std::to_string(pid);
  t.write(d + "/stat", std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) +
                           " 1 1 0 -1 " + std::to_string(flags) + " 0 0 0 0 0 0 0 0 20 0 1 0 " +
                           std::to_string(1000 + pid) +
                           " 1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  t.write(d + "/comm", comm + "\n");
  std::string argv = cmdline;
  for (char& c : argv)
    if (c == ' ') c = '\0';
  t.write(d + "/cmdline", argv + std::string(1, '\0'));
  t.write(d + "/status", "Name:\t" + comm + "\nUid:\t" + std::to_string(uid) + "\t" +
                             std::to_string(uid) + "\t0\t0\n");
  t.write(d + "/cgroup", "0::" + cgroup + "\n");
}

}  // namespace gt
