// Driver versions that do not need NVML: the loaded kernel module's, and the
// one encoded in the user-space library's file name. A mismatch between the
// two is the classic "Driver/library version mismatch" after an upgrade
// without a reboot.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/fs_root.h"

namespace gt {

/// The loaded kernel module's version: <root>/sys/module/nvidia/version,
/// else the version word of <root>/proc/driver/nvidia/version (proprietary
/// "... Kernel Module  590.48.01  Release Build ..." and open "... Open Kernel
/// Module for x86_64  570.133.20  Release Build ..." forms). nullopt when the
/// module is not loaded or neither file holds a version.
std::optional<std::string> read_kernel_module_version(const FsRoot& root);

/// The driver version in a library file name: "libnvidia-ml.so.565.57.01" ->
/// "565.57.01" (a leading directory is ignored). nullopt for
/// "libnvidia-ml.so.1" or anything without a dotted version of >= 2 numeric
/// parts right after ".so.".
std::optional<std::string> library_version_from_filename(std::string_view filename);

}  // namespace gt
