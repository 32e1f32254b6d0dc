#include "sources/fs/volume_path.h"

#include <unistd.h>

#include <cerrno>

#include "util/errno_error.h"

namespace gt {
namespace {

bool is_live(const FsRoot& root) { return root.root().empty() || root.root() == "/"; }

Result<std::string> working_directory() {
  char buf[kMaxResolvedPathBytes];
  if (::getcwd(buf, sizeof buf) == nullptr)
    return errno_error(errno, "cannot read the working directory");
  return std::string(buf);
}

}  // namespace

Result<PathInRoot> volume_path(const FsRoot& root, const std::string& given) {
  if (given.starts_with('/')) return resolve_in_root(root, given);
  if (given.empty()) return Error{ErrorKind::kMalformed, "an empty path"};
  if (!is_live(root))
    return Error{ErrorKind::kUnsupported,
                 given + " is relative: a path of this machine, not of the --root tree"};
  Result<std::string> cwd = working_directory();
  if (!cwd) return cwd.error();
  return resolve_in_root(root, *cwd + "/" + given);
}

}  // namespace gt
