// Is the job still writing? Processes holding a file under DIR open for
// writing, from /proc/<pid>/fd (the link names the file) and
// /proc/<pid>/fdinfo/<fd> (its `flags:` say O_WRONLY or O_RDWR), read
// through an FsRoot so tests replay a fixture tree.
#pragma once

#include <string>
#include <vector>

#include "util/fs_root.h"

namespace gt {

struct Writer {
  int pid = 0;
  std::string comm;  ///< /proc/<pid>/comm, "" when unreadable
  std::string path;  ///< the file it has open for writing
};

/// Writers of files under any of `abs_dirs` (absolute, resolved). At most
/// `limit` are returned; processes that vanish or cannot be read are skipped.
std::vector<Writer> find_writers(const FsRoot& root, const std::vector<std::string>& abs_dirs,
                                 size_t limit = 20);

}  // namespace gt
