// statvfs(2) through util/fs_space (an unlimited inode count is null,
// never "0 inodes free"), once per filesystem (st_dev), of each path as
// resolved in the root (sources/fs/volume_path).
#include "sources/fs/disk_usage.h"

#include <sys/stat.h>

#include <cerrno>
#include <map>
#include <set>

#include "sources/fs/volume_path.h"
#include "util/errno_error.h"
#include "util/fs_space.h"

namespace gt {

std::vector<DiskUsage> read_disk_usage(const FsRoot& root, const std::vector<std::string>& paths) {
  std::vector<DiskUsage> out;
  std::map<dev_t, std::string> first_on;  // filesystem -> the first path given on it
  std::set<std::string> given;
  for (const std::string& p : paths) {
    if (!given.insert(p).second) continue;
    DiskUsage d;
    d.path = p;
    // The filesystem the path's writes land on: its links followed in the
    // tree (an absolute target is the tree's, never this machine's).
    Result<PathInRoot> at = volume_path(root, p);
    if (!at) {
      d.error = at.error().message;
      out.push_back(d);
      continue;
    }
    const std::string real = root.path(at->path);
    struct stat st;
    Result<FsSpace> space = ::stat(real.c_str(), &st) != 0
                                ? Result<FsSpace>(errno_error(errno, "cannot read " + p))
                                : read_fs_space(real, p);
    if (!space) {
      d.error = space.error().message;
      out.push_back(d);
      continue;
    }
    if (auto [at, fresh] = first_on.emplace(st.st_dev, p); !fresh) {
      // One filesystem, one set of numbers: those read for its first path
      // (a second statvfs a moment later can differ while others write).
      d.same_filesystem_as = at->second;
      for (const DiskUsage& e : out)
        if (e.path == at->second) {
          d.total_bytes = e.total_bytes;
          d.available_bytes = e.available_bytes;
          d.inodes_total = e.inodes_total;
          d.inodes_available = e.inodes_available;
        }
      out.push_back(d);
      continue;
    }
    d.total_bytes = space->total_bytes;
    d.available_bytes = space->available_bytes;
    d.inodes_total = space->inodes_total;
    d.inodes_available = space->inodes_available;
    out.push_back(d);
  }
  return out;
}

}  // namespace gt
