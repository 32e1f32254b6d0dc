// Which package manager pins the NVIDIA driver on this node, from
// /etc/os-release (os-release(5): ID, then ID_LIKE), and the command that
// pins exactly the installed driver packages: never the container toolkit
// (nvidia-container-toolkit, libnvidia-container*), which has releases of
// its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/os_identity.h"

namespace gt {

enum class PackageTool { kApt, kDnf, kZypper, kUnknown };

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
