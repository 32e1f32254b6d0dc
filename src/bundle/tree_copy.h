// The copy of what the collectors read (util/read_log.h), laid out as the
// fixture trees of tests/scenarios/*/root are: "root/proc/1/stat" holds the
// bytes the collector was given, so `--root` (or the bundle's replay)
// reads the recorded node as it read this one. Only what was read is
// copied, each file bounded; what cannot be a file of an archive (a
// device, a FIFO) is named in the notes instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/fs_root.h"
#include "util/read_log.h"

namespace gt {

/// One entry of the copied tree, or of any other member of the archive.
struct TreeEntry {
  /// kOther: a member of an archive read back that is none of the three
  /// (a hard link, a device, a FIFO, a socket): kept by name for the
  /// replay's check (bundle.unverified), never extracted or written.
  enum class Type { kFile, kFolder, kLink, kOther };
  Type type = Type::kFile;
  std::string name;    ///< path in the archive ("root/proc/1/stat")
  std::string bytes;   ///< kFile
  std::string target;  ///< kLink: the link's text as read; kOther: what it is
};

struct TreeCopy {
  std::vector<TreeEntry> entries;
  std::vector<std::string> notes;  ///< "/dev/nvidia0: a device, not copied"
};

/// Copies the files of `log` from `root` (a root without a read log) under
/// "root/". A file opened by a collector (read by the collector itself) is
/// read again here, its last `file_cap_bytes` kept (a log's newest lines);
/// /dev/kmsg is read record by record, as the kernel-log reader does, and
/// stored as the fixture trees' regular file of records.
TreeCopy copy_read_files(const FsRoot& root, const std::vector<ReadEntry>& log,
                         uint64_t file_cap_bytes);

}  // namespace gt
