#include "render/textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gt {
namespace {

Error io_error(const std::string& what) {
  return Error{errno == EACCES || errno == EPERM ? ErrorKind::kPermissionDenied : ErrorKind::kIo,
               what + ": " + std::strerror(errno)};
}

/// Writes all of `content` to `fd`, retrying short writes.
bool write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Status write_textfile_atomically(const std::string& dir, const std::string& content) {
  const std::string final_path = dir + "/" + kTextfileName;
  const std::string tmp_path = dir + "/." + kTextfileName + "." + std::to_string(getpid());
  int fd = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create " + tmp_path);
  bool ok = write_all(fd, content) && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  Error err = io_error("cannot write " + tmp_path);
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = io_error("cannot write " + tmp_path);
  }
  if (ok && ::rename(tmp_path.c_str(), final_path.c_str()) != 0) {
    ok = false;
    err = io_error("cannot rename " + tmp_path + " to " + final_path);
  }
  if (!ok) {
    ::unlink(tmp_path.c_str());
    return err;
  }
  return ok_status();
}

}  // namespace gt
