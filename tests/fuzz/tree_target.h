// The fuzz targets whose parsers read files under a root (FsRoot): one
// scratch tree per process, made once, into which each input is written at
// every path of the parser family before the readers run. A real file as a
// seed is thus read by the parser it belongs to (and, as noise, by the
// others of its family); the tree is the tool's own way in, so the input
// goes through the same reads, caps and limits as on a node.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "util/fs_root.h"

namespace gt::fuzz {

class ScratchTree {
 public:
  ScratchTree() {
    char tmpl[] = "/tmp/gt-fuzz-tree-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    dir_ = tmpl;
    std::atexit(&ScratchTree::remove_last);
    last_ = dir_;
  }
  /// `bytes` as the whole of `abs_path` under the tree (folders made).
  void write(const std::string& abs_path, std::string_view bytes) const {
    std::filesystem::path p = dir_ + abs_path;
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  }
  void link(const std::string& target, const std::string& abs_path) const {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dir_ + abs_path).parent_path(), ec);
    std::filesystem::create_symlink(target, dir_ + abs_path, ec);
  }
  FsRoot root() const { return FsRoot(dir_); }

 private:
  static void remove_last() {
    std::error_code ec;
    if (!last_.empty()) std::filesystem::remove_all(last_, ec);
  }
  std::string dir_;
  static inline std::string last_;
};

}  // namespace gt::fuzz
