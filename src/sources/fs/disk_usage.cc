// statvfs(2): f_blocks and f_bavail are in units of f_frsize; f_files is 0
// on filesystems without an inode limit (btrfs, some FUSE), which we report
// as null rather than "0 inodes free".
#include "sources/fs/disk_usage.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

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
    struct statvfs vfs;
    if (::stat(real.c_str(), &st) != 0 || ::statvfs(real.c_str(), &vfs) != 0) {
      d.error = std::string("cannot read ") + p + ": " + std::strerror(errno);
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
    d.total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    d.available_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (vfs.f_files > 0) {
      d.inodes_total = vfs.f_files;
      d.inodes_available = vfs.f_favail;
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace gt
