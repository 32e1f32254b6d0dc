// FsRoot: every /proc and /sys reader goes through a root directory, so a
// broken node can be captured as a fixture tree and replayed in tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace gt {

class FsRoot {
 public:
  /// `root` is the directory that stands for "/" ("/" on a live node).
  explicit FsRoot(std::string root = "/");

  /// Returns root + abs_path ("/proc/1/cmdline" under "fixtures/x").
  std::string path(const std::string& abs_path) const;
  const std::string& root() const { return root_; }
  /// The inverse of path(): a file found under the root, as the node sees it
  /// ("fixtures/x/usr/lib/a.so" is "/usr/lib/a.so"); other paths unchanged.
  std::string node_path(const std::string& real_path) const;

  /// Reads a whole file. NotFound when it does not exist (or vanished),
  /// PermissionDenied, Io otherwise; the message names the path and errno.
  Result<std::string> read(const std::string& abs_path) const;

  /// Reads a file and strips trailing whitespace; nullopt when absent or
  /// unreadable (for legitimately optional files).
  std::optional<std::string> read_optional_trimmed(const std::string& abs_path) const;

  /// Lists the entry names of a directory (no "." or ".."), sorted.
  Result<std::vector<std::string>> list(const std::string& abs_dir) const;

  /// Resolves a symlink at abs_path; returns its target text.
  std::optional<std::string> read_link(const std::string& abs_path) const;

  bool exists(const std::string& abs_path) const;

 private:
  std::string root_;
};

}  // namespace gt
