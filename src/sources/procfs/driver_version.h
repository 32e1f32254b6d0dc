// Driver versions that do not need NVML: the loaded kernel module's, and the
// one encoded in the user-space library's file name. A mismatch between the
// two is the classic "Driver/library version mismatch" after an upgrade
// without a reboot.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
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

/// The loaded NVIDIA kernel modules (<root>/sys/module/nvidia*, with a
/// refcnt file) and every module holding one of them (gdrdrv, ...), each
/// with its refcnt and holders, in an order they can be unloaded in: a
/// module after all its holders; ties in the order nvidia_peermem, nvidia_fs,
/// nvidia_uvm, nvidia_drm, nvidia_modeset, nvidia. Empty when none is loaded.
std::vector<KernelModule> read_nvidia_modules(const FsRoot& root);

/// The NVIDIA daemons running (/proc/PID/comm): nvidia-persistenced, Fabric
/// Manager (nv-fabricmanager), DCGM (nv-hostengine), each with the systemd
/// unit its cgroup names. In PID order.
std::vector<NvidiaService> read_nvidia_services(const FsRoot& root);

}  // namespace gt
