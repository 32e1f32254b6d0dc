// The node's host name: gethostname() on the live node, else the fixture
// tree's /etc/hostname or /proc/sys/kernel/hostname.
#pragma once

#include <optional>
#include <string>

#include "util/fs_root.h"

namespace gt {

/// The host name, or nullopt when it cannot be read.
std::optional<std::string> read_hostname(const FsRoot& root);

}  // namespace gt
