// The device nodes CUDA opens (/dev/nvidiactl, /dev/nvidia-uvm and -tools,
// one /dev/nvidiaN per GPU by the minor number the driver gives it in
// /proc/driver/nvidia/gpus/*/information, /dev/nvidia-caps/ for MIG) and
// whether the nvidia_uvm module is loaded (/proc/modules, else
// /sys/module/nvidia_uvm).
//
// A node is present when it is a character device. Under a root other than
// "/" (a fixture tree, a host's gathered files: no device nodes can be kept
// there) a regular file stands for one, as the scenarios' /dev/kmsg does;
// under "/" a regular file is not a device and a note says so.
//
// The tree's /dev is judged only when it has /dev/nvidiactl or NVML did not
// initialise: NVML cannot initialise without /dev/nvidiactl in its own
// namespace, so a tree without it while NVML answers is not the /dev NVML
// opened (a --root of files without /dev) and the nodes are unknown.
#pragma once

#include <optional>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Null when the tree's /dev does not stand for this node's (see above).
std::optional<CudaDeviceNodes> read_device_nodes(const FsRoot& root, const NodeSnapshot& snap);

/// Whether `path` is a device node here (see above); a note when something
/// else is at its path.
bool node_present(const FsRoot& root, const std::string& path, std::vector<std::string>& notes);

/// Whether this tree is inside a container: /.dockerenv (Docker),
/// /run/.containerenv (Podman), or "/" mounted on overlay.
bool tree_in_container(const FsRoot& root, const NodeSnapshot& snap);

}  // namespace gt
