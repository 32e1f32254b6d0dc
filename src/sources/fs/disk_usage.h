// Free space and inodes of the filesystems that hold the given paths.
#pragma once

#include <string>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// statvfs() of each path under `root`, one entry per path in the order
/// given (a path given twice once): a path on the same filesystem (same
/// st_dev) as an earlier one keeps its own entry, with its numbers and
/// `same_filesystem_as` naming that earlier path. A path that cannot be
/// read gives an entry with `error` set, never a silent skip.
std::vector<DiskUsage> read_disk_usage(const FsRoot& root, const std::vector<std::string>& paths);

}  // namespace gt
