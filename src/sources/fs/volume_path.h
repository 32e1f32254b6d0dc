// The path a disk or mount lookup uses for a --path or --data value: the
// node's path resolved inside the root (util/path_in_root), so the
// filesystem and the mount judged are the ones the writes land on.
#pragma once

#include <string>

#include "util/fs_root.h"
#include "util/path_in_root.h"
#include "util/result.h"

namespace gt {

/// An absolute path is the node's, resolved under `root`. A relative one is
/// this process's (its working directory): resolved when `root` is this
/// machine's "/"; under a --root tree it names no path of the tree, so it
/// is an error (kUnsupported), never looked up in the tree's mounts.
Result<PathInRoot> volume_path(const FsRoot& root, const std::string& given);

}  // namespace gt
