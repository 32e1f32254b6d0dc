#include "util/errno_error.h"

#include <cerrno>
#include <cstring>

namespace gt {

ErrorKind errno_kind(int err) {
  if (err == ENOENT || err == ENOTDIR || err == ESRCH) return ErrorKind::kNotFound;
  if (err == EACCES || err == EPERM) return ErrorKind::kPermissionDenied;
  return ErrorKind::kIo;
}

Error errno_error(int err, const std::string& what) {
  return Error{errno_kind(err), what + ": " + std::strerror(err)};
}

}  // namespace gt
