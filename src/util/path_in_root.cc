// Component by component with lstat(2) and readlink(2) under the root, a
// stack of the components still to walk: a link's target is pushed in
// front of the rest, so "/data/../x" with /data -> /mnt/nvme0/data is
// /mnt/nvme0/x, as the kernel walks it (".." is of the link's target).
// Below a missing component nothing is looked up; a ".." back above it
// looks up again ("/new/../mnt/link" is where mkdir -p would put it), so
// resolving a resolution gives it back.
#include "util/path_in_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "util/errno_error.h"

namespace gt {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

/// The components of `path` in reverse order (the next one last).
void push_components(std::string_view path, std::vector<std::string>& todo) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    const size_t slash = path.find('/', i);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > i) parts.emplace_back(path.substr(i, end - i));
    i = end + 1;
  }
  todo.insert(todo.end(), parts.rbegin(), parts.rend());
}

std::string joined(const std::vector<std::string>& parts) {
  if (parts.empty()) return "/";
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out;
}

/// The target of the link at `host_path`, or the errno's error.
Result<std::string> link_target(const std::string& host_path, const std::string& node_path) {
  char buf[kMaxResolvedPathBytes];
  const ssize_t n = ::readlink(host_path.c_str(), buf, sizeof buf);
  if (n < 0) return errno_error(errno, "cannot read the link " + node_path);
  if (static_cast<size_t>(n) >= sizeof buf)
    return Error{ErrorKind::kMalformed, "the link " + node_path + " is longer than PATH_MAX"};
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

Result<PathInRoot> resolve_in_root(const FsRoot& root, std::string_view node_path, Walk walk,
                                   bool quiet) {
  if (!node_path.starts_with('/'))
    return Error{ErrorKind::kMalformed, "not an absolute path: " + std::string(node_path)};
  if (node_path.size() > kMaxResolvedPathBytes || node_path.find('\0') != std::string_view::npos)
    return Error{ErrorKind::kMalformed, "not a path (a NUL, or longer than PATH_MAX)"};
  PathInRoot out;
  std::vector<std::string> todo;  // the next component last
  push_components(node_path, todo);
  std::vector<std::string> done;  // the resolved components
  size_t missing_at = kNone;      // the first of `done` not there
  while (!todo.empty()) {
    std::string c = std::move(todo.back());
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();                 // the root's ".." is the root
      if (done.size() <= missing_at) missing_at = kNone;  // back where things are
      continue;
    }
    done.push_back(std::move(c));
    if (missing_at != kNone) continue;  // below a missing component: as written
    const std::string here = joined(done);
    const std::string host = root.path(here);
    struct stat st;
    if (::lstat(host.c_str(), &st) != 0) {
      const int err = errno;
      if (err != ENOENT && err != ENOTDIR) return errno_error(err, "cannot resolve " + here);
      missing_at = done.size() - 1;
      if (walk == Walk::kAsOpened) {  // the rest as written, ".." and all
        for (auto rest = todo.rbegin(); rest != todo.rend(); ++rest) done.push_back(*rest);
        todo.clear();
      }
      continue;
    }
    if (!S_ISLNK(st.st_mode)) continue;
    if (++out.links_followed > kMaxLinksFollowed)
      return Error{ErrorKind::kIo, "cannot resolve " + std::string(node_path) +
                                       ": too many levels of symbolic links"};
    Result<std::string> target = link_target(host, here);
    if (!target) return target.error();
    done.pop_back();
    if (target->starts_with('/')) done.clear();
    push_components(*target, todo);
  }
  out.path = joined(done);
  out.exists = missing_at == kNone;
  if (out.exists && !quiet) root.note_found(std::string(node_path));
  if (out.path.size() > kMaxResolvedPathBytes)
    return Error{ErrorKind::kMalformed,
                 "cannot resolve " + std::string(node_path) + ": longer than PATH_MAX"};
  return out;
}

}  // namespace gt
