// The nvidia-smi an operator would run, and the release it was built from.
// nvidia-smi's header "NVIDIA-SMI X  Driver Version: Y  CUDA Version: Z"
// prints X, the binary's own build, beside Y, which NVML reports (the
// running module's release: docs/physics.md R4). A copy from another
// release first on PATH (an image's own, an old utilities package) shows two
// versions without comment; this reader lets the report explain them.
//
// The release is read from the binary's bytes: NVIDIA's nvidia-smi keeps
// it as one NUL-terminated string right before its header template's
// "<NVSMIV" placeholder ("\0535.261.03\0<NVSMIV\0", read in Debian's
// nvidia-smi 535.261.03 and 550.163.01); nothing else is taken as a version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/server.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

inline constexpr uint64_t kMaxNvidiaSmiBytes = 64ull << 20;

/// The directories searched, in order: the tool's own PATH on the live node,
/// else (a --root tree) the CUDA images' PATH (NVIDIA's
/// /usr/local/nvidia/bin first, then Debian's root PATH).
std::vector<std::string> nvidia_smi_search_path(const FsRoot& root);

/// The release in an nvidia-smi's bytes, by the marker above; nullopt when
/// the marker is absent or what precedes it is not a driver release.
std::optional<std::string> nvidia_smi_release_in(std::string_view bytes);

/// Every nvidia-smi on the search path, first (the one a shell runs) first;
/// empty when there is none.
std::vector<NvidiaSmiBinary> read_nvidia_smi_binaries(const FsRoot& root);

/// Appends, for each GPU server's Docker container whose PID 1 is known,
/// every nvidia-smi on the container's PATH (its Config.Env, else the CUDA
/// images' PATH) read in the container's root (/proc/PID/root): the one an
/// operator's `docker exec` shell runs first, first.
void add_container_nvidia_smi(const FsRoot& root, const std::vector<Server>& servers,
                              std::vector<NvidiaSmiBinary>& out);

}  // namespace gt
