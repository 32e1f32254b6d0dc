// The distribution's identity from os-release(5), as the checks need it
// (which package tool pins the driver).
#pragma once

#include <optional>
#include <string>

namespace gt {

/// ID and ID_LIKE (lowercase words; either may be missing) and PRETTY_NAME.
struct OsRelease {
  std::optional<std::string> id;       ///< "ubuntu", "rocky", "sles", ...
  std::optional<std::string> id_like;  ///< "debian", "rhel centos fedora", ...
  std::optional<std::string> pretty_name;
};

}  // namespace gt
