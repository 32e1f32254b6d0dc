// The mount holding each inspected path, and the mounts the node's
// configuration expects (/etc/fstab, systemd .mount units), all through
// FsRoot so a fixture tree stands for a node.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// One line of /proc/self/mountinfo (proc(5)), octal escapes decoded.
struct MountEntry {
  /// The directory or file of the filesystem mounted here (field 4: a bind
  /// mount's source path within its filesystem).
  std::string root;
  std::string mount_point;
  std::string mount_options;  ///< per-mount ("rw,relatime")
  std::string fs_type;
  std::string source;
  std::string super_options;  ///< the superblock's ("rw,errors=remount-ro")
};

/// A mount the configuration asks for: an /etc/fstab line or a .mount unit.
struct ExpectedMount {
  std::string where;    ///< mount point
  std::string what;     ///< device spec (UUID=..., /dev/..., server:/export)
  std::string type;     ///< fs type ("auto" when not said)
  std::string options;  ///< "defaults,nofail"
  std::string origin;   ///< "/etc/fstab:12: <the line>" or "<unit file>: What=..."
  std::string unit;     ///< the .mount unit's name, empty for fstab
  /// Mounted at boot: an fstab line without noauto, or a .mount unit that a
  /// `*.wants/` or `*.requires/` link pulls in (systemd.unit(5): a unit file
  /// alone is started only when something wants it; `systemctl enable`
  /// makes the link its [Install] WantedBy= names).
  bool at_boot = true;
};

/// Lines that do not parse are skipped.
std::vector<MountEntry> parse_mountinfo(std::string_view text);
/// Comments, blank lines, swap and "none" mount points are skipped.
std::vector<ExpectedMount> parse_fstab(std::string_view text);
/// The [Mount] section of a .mount unit; nullopt without a Where=.
std::optional<ExpectedMount> parse_mount_unit(std::string_view text, const std::string& file);

/// "\040" -> " " (mountinfo and fstab escape space, tab, newline, backslash).
std::string unescape_octal(std::string_view s);

/// Whether `path` is `prefix` or below it ("/data/x" under "/data", not
/// "/database").
bool path_under(std::string_view path, std::string_view prefix);

/// One MountInfo per path (the order of `disks`, whose numbers it takes).
/// What could not be read of the mount table and the configuration
/// (/etc/fstab, /etc/systemd/system, a .mount unit; a missing one is no
/// error) is added to `unread`, "PATH: why", when given: the mount checks
/// that need it did not run.
std::vector<MountInfo> read_mounts(const FsRoot& root, const std::vector<DiskUsage>& disks,
                                   std::vector<std::string>* unread = nullptr);

}  // namespace gt
