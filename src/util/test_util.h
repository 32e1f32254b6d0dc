// Shared helpers for the unit tests.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

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

}  // namespace gt
