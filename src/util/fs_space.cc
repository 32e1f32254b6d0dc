#include "util/fs_space.h"

#include <sys/statvfs.h>

#include <cerrno>

#include "util/errno_error.h"

namespace gt {

Result<FsSpace> read_fs_space(const std::string& path, const std::string& name) {
  struct statvfs vfs;
  if (::statvfs(path.c_str(), &vfs) != 0) return errno_error(errno, "cannot read " + name);
  FsSpace s;
  s.total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  s.available_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (vfs.f_files > 0) {
    s.inodes_total = vfs.f_files;
    s.inodes_available = vfs.f_favail;
  }
  return s;
}

std::optional<uint64_t> free_bytes(const std::string& dir) {
  Result<FsSpace> s = read_fs_space(dir, dir);
  if (!s) return std::nullopt;
  return s->available_bytes;
}

}  // namespace gt
