// Which package manager pins the NVIDIA driver on this node, from
// /etc/os-release (os-release(5): ID, then ID_LIKE), and the command that
// pins exactly the installed driver packages: never the container toolkit
// (nvidia-container-toolkit, libnvidia-container*), which has releases of
// its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gt {

enum class PackageTool { kApt, kDnf, kZypper, kUnknown };

/// The distribution's identity from os-release: ID and ID_LIKE (lowercase
/// words; either may be missing).
struct OsRelease {
  std::optional<std::string> id;       ///< "ubuntu", "rocky", "sles", ...
  std::optional<std::string> id_like;  ///< "debian", "rhel centos fedora", ...
  std::optional<std::string> pretty_name;
};

/// Parses os-release text (KEY=value, values optionally quoted).
OsRelease parse_os_release(std::string_view text);

/// apt on Debian/Ubuntu and their derivatives, dnf on RHEL/Rocky/Alma/
/// CentOS/Fedora, zypper on SUSE; kUnknown otherwise or without os-release.
PackageTool package_tool(const OsRelease& os);

/// "sudo ..." that pins the installed driver packages, or nullopt for
/// kUnknown (the advice then says it in words).
std::optional<std::string> pin_driver_command(PackageTool tool);

/// The words for an unknown distribution.
constexpr const char* kGenericPinAdvice =
    "pin the installed NVIDIA driver packages with the package manager's hold or lock (not "
    "nvidia-container-toolkit)";

}  // namespace gt
