// statvfs(2) through util/fs_space (an unlimited inode count is null,
// never "0 inodes free"), once per filesystem (st_dev).
#include "sources/fs/disk_usage.h"

#include <sys/stat.h>

#include <cerrno>
#include <map>
#include <set>

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
    const std::string real = p.starts_with("/") ? root.path(p) : p;
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
