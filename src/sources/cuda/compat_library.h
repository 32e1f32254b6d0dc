// A CUDA forward-compatibility libcuda known by what it is, not only by
// where it sits. NVIDIA ships it in a cuda-compat package's directory
// (/usr/local/cuda-X.Y/compat/, docs.nvidia.com/deploy/cuda-compatibility,
// "Forward Compatibility"), and the container toolkits before 2025
// bind-mounted that file over the image's standard library directory
// (libnvidia-container's compat mounts; NVIDIA/nvidia-container-toolkit#1426
// on the "strictly greater driver version" check that decided it). There it
// carries no compat path: it is told by the mount (/proc/self/mountinfo's
// root field names the file in the compat directory) or by being the same
// file, size and bytes, as one in a compat directory (an image that copied
// it). Not used: an embedded marker of the compat package, since the
// compat libcuda is the driver release's own build and no source says how
// its bytes differ.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sources/fs/mount_table.h"
#include "util/fs_root.h"

namespace gt {

/// What tells a compat library here: the file bind mounts and the files of
/// the compat directories.
struct CompatSigns {
  /// mountinfo entries whose root (the mounted file in its filesystem) lies
  /// in a compat directory.
  std::vector<MountEntry> compat_mounts;
  /// libcuda files of /usr/local/cuda*/compat/ (node paths, links followed).
  std::vector<std::string> compat_files;
  /// Files already compared with the compat files (node path -> the one it
  /// equals, "" for none): each loader context resolves the same libcuda,
  /// and a comparison reads both files whole.
  mutable std::map<std::string, std::string> compared;
};

/// Whether `path`'s directory is a compat directory ("/compat" or below one).
bool in_compat_dir(const std::string& path);

/// Reads /proc/self/mountinfo and lists /usr/local/cuda*/compat/ under
/// `root`; what is absent or unreadable is simply not a sign.
CompatSigns read_compat_signs(const FsRoot& root);

/// How a library is known to be a forward-compatibility one, and the
/// compat package's file it is (whose name carries the package's release,
/// wherever the library sits and whatever it is named there).
struct CompatOrigin {
  /// "in the compat directory /usr/local/cuda-12.8/compat", "a bind mount
  /// of ... (/proc/self/mountinfo)", "the same file (size and bytes) as ...".
  std::string how;
  std::string compat_file;  ///< "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06"
};

/// Whether the library found at `found_at` (the file `file` after links)
/// is a forward-compatibility library, and how that is known; nullopt when
/// nothing says so.
std::optional<CompatOrigin> compat_origin(const FsRoot& root, const CompatSigns& signs,
                                          const std::string& found_at, const std::string& file);

}  // namespace gt
