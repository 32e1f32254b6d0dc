// A node's path resolved inside a root (FsRoot), as openat2(2)'s
// RESOLVE_IN_ROOT would: every symbolic link followed, an absolute target
// read from the root's "/", ".." never climbing above it, so a fixture tree
// is judged by its own links and a link can never lead out of the tree. The
// part of the path that does not exist (yet) is kept as written, "." and
// ".." applied: the mount that would hold /data/new is known before it is
// made. Mount, fstab and statvfs lookups compare these paths, never the text
// given: /data -> /mnt/nvme0/data is judged by /mnt/nvme0's mount, and
// /mnt/nvme0/../etc is not under /mnt/nvme0.
#pragma once

#include <string>
#include <string_view>

#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

/// The kernel's limits: a path of at most PATH_MAX bytes, at most 40
/// symbolic links followed in one resolution (MAXSYMLINKS, path_resolution(7)).
inline constexpr size_t kMaxResolvedPathBytes = 4096;
inline constexpr int kMaxLinksFollowed = 40;

struct PathInRoot {
  std::string path;  ///< as the node sees it: absolute, no link, ".", ".." or "//"
  /// `path` exists; else from its first missing component on it is as written.
  bool exists = false;
  int links_followed = 0;
};

/// How a missing component is walked past.
enum class Walk {
  /// As mkdir -p would: the rest as written, ".." and "." applied, and a
  /// ".." back above the missing component looks up again (where a path
  /// would be: the mount of /data/new).
  kToWhereItWouldBe,
  /// As open(2) would: the walk ends at the missing component and the rest
  /// is kept as written, so an open of it fails there ("/new/../etc" is
  /// not "/etc"). What FsRoot's readers open.
  kAsOpened,
};

/// Resolves the absolute `node_path` under `root`: the one resolver of
/// paths inside a root (FsRoot's readers resolve through it). kMalformed
/// when it is not absolute, contains a NUL or is longer than
/// kMaxResolvedPathBytes; kIo "too many levels of symbolic links" past
/// kMaxLinksFollowed (a loop); an lstat/readlink failure other than "not
/// there" (EACCES, EIO) as that errno's error, never a guess. A path that
/// exists is logged as found (FsRoot::note_found) unless `quiet`.
Result<PathInRoot> resolve_in_root(const FsRoot& root, std::string_view node_path,
                                   Walk walk = Walk::kToWhereItWouldBe, bool quiet = false);

}  // namespace gt
