// What the mount table says about / and each --path: the filesystem that
// holds it, and whether that is the one the node's configuration expects.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// What is wrong with the filesystem holding a path. Declared in the order
/// of the names (alphabetical), so anything ordered by it orders as it did
/// by the word.
enum class MountProblem {
  kNetwork,      ///< the path is on a network filesystem
  kNotMounted,   ///< the expected mount is missing: the path is on its parent's filesystem
  kOverlay,      ///< the path is on an overlay (a container's own layer)
  kReadOnly,     ///< read-only although its configuration or the kernel says read-write
  kWrongDevice,  ///< mounted from another device than the configuration names
};
inline constexpr std::array kMountProblems{MountProblem::kNetwork, MountProblem::kNotMounted,
                                           MountProblem::kOverlay, MountProblem::kReadOnly,
                                           MountProblem::kWrongDevice};
/// "network", "not_mounted", "overlay", "read_only", "wrong_device" (the
/// JSON "problem").
const char* mount_problem_name(MountProblem p);

/// One inspected path (/ and each --path, in the order given), then each
/// mount the configuration asks for at boot that no such path is under.
struct MountInfo {
  std::string path;  ///< as given, or the configured mount point
  /// Inspected because /etc/fstab or a .mount unit names it (not noauto),
  /// not because it was asked for (/, --path, --data).
  bool configured_only = false;
  /// Why the path's mount was not looked up: the mount table could not be
  /// read, or the path not resolved (then every field below is null).
  std::optional<std::string> error;
  /// `path` resolved in the root (sources/fs/volume_path): every link
  /// followed, "." and ".." applied; every lookup below is of this path.
  std::optional<std::string> resolved_path;
  // The mount holding the path (longest mount point that is a prefix of it),
  // from /proc/self/mountinfo.
  std::optional<std::string> mount_point;
  std::optional<std::string> fs_type;  ///< "ext4", "nfs4", "overlay", "fuse.s3fs"...
  std::optional<std::string> source;   ///< "/dev/nvme1n1p1", "server:/export"...
  std::optional<std::string> options;  ///< per-mount options, then the superblock's
  std::optional<bool> read_only;       ///< either says "ro"
  /// The superblock is read-only while the mount is read-write: the kernel
  /// remounted it after errors (errors=remount-ro).
  std::optional<bool> read_only_after_errors;
  // Space on it, from the path's DiskUsage (statvfs), when read.
  std::optional<uint64_t> total_bytes;
  std::optional<uint64_t> available_bytes;
  /// The configuration that names a mount at or above the path: the
  /// /etc/fstab line ("/etc/fstab:12: UUID=... /data ext4 defaults 0 2") or
  /// the systemd unit ("/etc/systemd/system/data.mount: What=/dev/nvme1n1p1").
  std::optional<std::string> expected_by;
  std::optional<std::string> expected_mount_point;  ///< that mount's point
  /// Not mounted at boot: fstab noauto, or a .mount unit that no
  /// `*.wants/` or `*.requires/` link pulls in.
  std::optional<bool> expected_noauto;
  std::optional<std::string> expected_options;  ///< fstab options / unit Options=
  /// The configured source resolved against the block devices present
  /// (/dev/disk/by-*, /sys/class/block): the kernel name ("nvme1n1p1").
  std::optional<std::string> expected_device;
  /// What the configured source's resolution says when it names no device:
  /// "UUID=... names no disk present", "/dev/disk/by-uuid is not present:
  /// not resolved", "source form 'FOO=x' is not one mount(8) knows".
  std::optional<std::string> expected_source_note;
  /// The kernel name of the mounted source, when it is a block device present.
  std::optional<std::string> mounted_device;
  /// kNotMounted / kWrongDevice: block devices present that nothing mounts
  /// ("nvme1n1 (3.8 TB, UUID ...)"): the disk that may hold the data.
  std::vector<std::string> unmounted_disks;
  /// What is wrong, when something is.
  std::optional<MountProblem> problem;
  /// kNotMounted: the path is a directory on the parent filesystem (writes
  /// land there); false: it does not exist at all; null: not looked at.
  std::optional<bool> plain_directory;
  bool operator==(const MountInfo&) const = default;
};

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<MountInfo> auto& m, auto& v) {
  v("path", m.path);
  v("configured_only", m.configured_only);
  v("error", m.error);
  v("resolved_path", m.resolved_path);
  v("mount_point", m.mount_point);
  v("fs_type", m.fs_type);
  v("source", m.source);
  v("options", m.options);
  v("read_only", m.read_only);
  v("read_only_after_errors", m.read_only_after_errors);
  v("total_bytes", m.total_bytes);
  v("available_bytes", m.available_bytes);
  v("expected_by", m.expected_by);
  v("expected_mount_point", m.expected_mount_point);
  v("expected_noauto", m.expected_noauto);
  v("expected_options", m.expected_options);
  v("expected_device", m.expected_device);
  v("expected_source_note", m.expected_source_note);
  v("mounted_device", m.mounted_device);
  v("unmounted_disks", m.unmounted_disks);
  v("problem", m.problem);
  v("plain_directory", m.plain_directory);
}

}  // namespace gt
