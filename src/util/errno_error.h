// One reading of errno for every place a failed system call becomes an
// Error: its kind decides what callers do (a /proc file whose process
// exited is "gone", a directory a user may not open is read without a lock),
// so it must not depend on which file made the call.
#pragma once

#include <string>

#include "util/result.h"

namespace gt {

/// ENOENT, ENOTDIR and ESRCH (a /proc entry whose process exited) are
/// kNotFound; EACCES and EPERM are kPermissionDenied; anything else is kIo.
ErrorKind errno_kind(int err);

/// Error{errno_kind(err), "<what>: <strerror(err)>"}. Pass errno saved
/// right after the failed call (a later call may change it).
Error errno_error(int err, const std::string& what);

}  // namespace gt
