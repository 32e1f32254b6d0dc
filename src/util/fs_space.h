// Space on the filesystem that holds a path, from statvfs(2): f_blocks and
// f_bavail count f_frsize units; f_files is 0 on filesystems without an
// inode limit (btrfs, some FUSE), which is unknown here, not "0 inodes".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "util/result.h"

namespace gt {

struct FsSpace {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;  ///< to unprivileged users (f_bavail)
  std::optional<uint64_t> inodes_total;
  std::optional<uint64_t> inodes_available;
};

/// statvfs() of `path`; the error says "cannot read <name>: <errno>", with
/// `name` the path as the user gave it (a fixture root's path may differ).
Result<FsSpace> read_fs_space(const std::string& path, const std::string& name);

/// Bytes an unprivileged writer can still put on `dir`'s filesystem;
/// nullopt when it cannot be read.
std::optional<uint64_t> free_bytes(const std::string& dir);

}  // namespace gt
