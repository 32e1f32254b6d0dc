// os-release(5): /etc/os-release, else /usr/lib/os-release, KEY=value lines
// with values optionally quoted.
#pragma once

#include <optional>
#include <string_view>

#include "model/os_identity.h"
#include "util/fs_root.h"

namespace gt {

/// Parses os-release text; keys other than ID, ID_LIKE and PRETTY_NAME are
/// ignored, as are comments and lines without '='.
OsRelease parse_os_release(std::string_view text);

/// The node's os-release under `root`; nullopt when neither file is readable.
std::optional<OsRelease> read_os_release(const FsRoot& root);

}  // namespace gt
