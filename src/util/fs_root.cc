#include "util/fs_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/errno_error.h"
#include "util/path_in_root.h"
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

namespace {

bool live_root(const std::string& root) { return root == "/" || root.empty(); }

}  // namespace

// Through the one resolver (util/path_in_root.h), as open(2) walks: a
// missing component ends the walk, the rest appended as written, so the
// open fails on the missing part before any ".." after it is taken.
Result<std::string> FsRoot::resolve_quietly(const std::string& abs_path) const {
  if (live_root(root_)) return abs_path;
  Result<PathInRoot> at = resolve_in_root(*this, abs_path, Walk::kAsOpened, /*quiet=*/true);
  if (!at) return at.error();
  return path(at->path);
}

Result<std::string> FsRoot::resolve(const std::string& abs_path) const {
  Result<std::string> p = resolve_quietly(abs_path);
  // The caller opens what it resolved itself (the kernel-log reader): logged
  // as found, when it is there.
  struct stat st {};
  if (p && log_ && ::stat(p->c_str(), &st) == 0) log_->stated(abs_path);
  return p;
}

Result<int> FsRoot::open(const std::string& abs_path, int flags) const {
  Result<std::string> p = resolve_quietly(abs_path);
  if (!p) return p.error();
  // Resolved: the last component is no link, unless it became one since.
  if (!live_root(root_)) flags |= O_NOFOLLOW;
  int fd = ::open(p->c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot open " + *p);
  if (log_) log_->opened(abs_path);
  return fd;
}

Result<std::string> FsRoot::read(const std::string& abs_path) const {
  Result<std::string> resolved = resolve_quietly(abs_path);
  if (!resolved) return resolved.error();
  const std::string& p = *resolved;
  // O_NONBLOCK: a FIFO planted where a /proc or /sys file belongs (a
  // fixture tree, a gathered copy) must not wait for a writer forever; it is
  // refused below. Regular files, /proc and /sys ignore the flag.
  int fd =
      ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (live_root(root_) ? 0 : O_NOFOLLOW));
  if (fd < 0) return errno_error(errno, "cannot open " + p);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    ::close(fd);
    return Error{ErrorKind::kMalformed, p + " is a FIFO or socket, not a file"};
  }
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
  if (log_) log_->file(abs_path, out);
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
  Result<std::string> resolved = resolve_quietly(abs_dir);
  if (!resolved) return resolved.error();
  const std::string& p = *resolved;
  DIR* dir = ::opendir(p.c_str());
  if (dir == nullptr) return errno_error(errno, "cannot list " + p);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  if (log_) log_->folder(abs_dir);
  return names;
}

std::optional<std::string> FsRoot::read_link(const std::string& abs_path) const {
  // The folder resolved inside the root; the link itself is read, not followed.
  std::string p = path(abs_path);
  if (!live_root(root_)) {
    const size_t slash = abs_path.rfind('/');
    const std::string name = abs_path.substr(slash + 1);
    if (slash == std::string::npos || name.empty() || name == "." || name == "..")
      return std::nullopt;
    Result<std::string> dir = resolve_quietly(abs_path.substr(0, slash + 1));
    if (!dir) return std::nullopt;
    p = *dir + (dir->ends_with("/") ? "" : "/") + name;
  }
  char buf[4096];
  ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  std::string target(buf, static_cast<size_t>(n));
  if (log_) log_->link(abs_path, target);
  return target;
}

Result<struct stat> FsRoot::stat(const std::string& abs_path) const {
  Result<std::string> p = resolve_quietly(abs_path);
  if (!p) return p.error();
  struct stat st {};
  if (::stat(p->c_str(), &st) != 0) return errno_error(errno, "cannot read " + abs_path);
  if (log_) log_->stated(abs_path);
  return st;
}

bool FsRoot::exists(const std::string& abs_path) const {
  Result<std::string> p = resolve_quietly(abs_path);
  struct stat st;
  const bool found = p && ::stat(p->c_str(), &st) == 0;
  if (found && log_) log_->stated(abs_path);
  return found;
}

}  // namespace gt
