#include "util/fs_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/errno_error.h"
#include "util/read_capped.h"

namespace gt {
FsRoot::FsRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string FsRoot::path(const std::string& abs_path) const {
  if (root_ == "/" || root_.empty()) return abs_path;
  return root_ + abs_path;
}

std::string FsRoot::node_path(const std::string& real_path) const {
  if (root_ == "/" || root_.empty()) return real_path;
  if (real_path.size() > root_.size() && real_path.compare(0, root_.size(), root_) == 0 &&
      real_path[root_.size()] == '/')
    return real_path.substr(root_.size());
  return real_path;
}

Result<std::string> FsRoot::read(const std::string& abs_path) const {
  const std::string p = path(abs_path);
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot open " + p);
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      // A /proc entry whose process exited mid-read reports ESRCH.
      return errno_error(err, "cannot read " + p);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > kMaxProcFileBytes) {
      ::close(fd);
      return Error{ErrorKind::kMalformed,
                   p + " is larger than 64 MiB, the limit for one /proc or /sys file"};
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<std::string> FsRoot::read_optional_trimmed(const std::string& abs_path) const {
  Result<std::string> r = read(abs_path);
  if (!r) return std::nullopt;
  std::string s = std::move(r.value());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\r' || s.back() == '\0'))
    s.pop_back();
  return s;
}

Result<std::vector<std::string>> FsRoot::list(const std::string& abs_dir) const {
  const std::string p = path(abs_dir);
  DIR* dir = ::opendir(p.c_str());
  if (dir == nullptr) return errno_error(errno, "cannot list " + p);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> FsRoot::read_link(const std::string& abs_path) const {
  const std::string p = path(abs_path);
  char buf[4096];
  ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

bool FsRoot::exists(const std::string& abs_path) const {
  struct stat st;
  return ::stat(path(abs_path).c_str(), &st) == 0;
}

}  // namespace gt
