// A node's file read whole through the root (links resolved inside it, as
// FsRoot::open does) with a stated limit: the loader's configuration, its
// cache and a process's environment are small, a wrong huge file is an error.
#pragma once

#include <cstdint>
#include <string>

#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

Result<std::string> read_node_file(const FsRoot& root, const std::string& node_path,
                                   uint64_t max_bytes, const std::string& what);

}  // namespace gt
