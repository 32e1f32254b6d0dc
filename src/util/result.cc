#include "util/result.h"

namespace gt {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotFound:
      return "not-found";
    case ErrorKind::kPermissionDenied:
      return "permission-denied";
    case ErrorKind::kMalformed:
      return "malformed";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kLibraryError:
      return "library-error";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kIo:
      return "io";
  }
  return "unknown";
}

}  // namespace gt
