// FsRoot: every /proc and /sys reader goes through a root directory, so a
// broken node can be captured as a fixture tree and replayed in tests.
// Under a root other than "/" (a fixture tree, a fleet host's gathered
// files) every path is resolved inside the root, as the kernel's
// openat2(RESOLVE_IN_ROOT) does: ".." at the root stays there, a link's
// absolute target starts again at the root, so no path taken from the
// node's data (a --config on a command line, a link in the tree) reaches a
// file of the machine running the tool.
#pragma once

#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/read_log.h"
#include "util/result.h"

namespace gt {

class FsRoot {
 public:
  /// `root` is the directory that stands for "/" ("/" on a live node).
  explicit FsRoot(std::string root = "/");

  /// Returns root + abs_path ("/proc/1/cmdline" under "fixtures/x"), as
  /// text: only for paths the tool chose itself. A path from the node's data
  /// goes through resolve() or the readers below.
  std::string path(const std::string& abs_path) const;

  /// The host path `abs_path` names inside the root, every component and
  /// link resolved there (util/path_in_root.h, the one resolver); under "/" the path as
  /// given. NotFound when a component is missing, Malformed for a relative
  /// path or a link loop.
  Result<std::string> resolve(const std::string& abs_path) const;

  /// Opens `abs_path` resolved inside the root (the last component is not
  /// followed when `flags` has O_NOFOLLOW). The caller closes the fd.
  Result<int> open(const std::string& abs_path, int flags) const;
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

  /// stat(2) of `abs_path` resolved inside the root (links followed there,
  /// never on this machine). NotFound when absent; the message names it.
  Result<struct stat> stat(const std::string& abs_path) const;

  /// Logs every file read, opened, listed or link read from now on (on this
  /// FsRoot and its copies) into `log`, for `gpu-triage bundle`; null stops.
  void set_read_log(std::shared_ptr<ReadLog> log) { log_ = std::move(log); }
  /// Logs `abs_path` as opened by a reader that opens what it resolved.
  void note_opened(const std::string& abs_path) const {
    if (log_) log_->opened(abs_path);
  }
  /// Logs `abs_path` as found (a resolver of its own, util/path_in_root.h).
  void note_found(const std::string& abs_path) const {
    if (log_) log_->stated(abs_path);
  }

 private:
  /// resolve() without logging (the readers above log what they did).
  Result<std::string> resolve_quietly(const std::string& abs_path) const;
  std::string root_;
  std::shared_ptr<ReadLog> log_;
};

}  // namespace gt
