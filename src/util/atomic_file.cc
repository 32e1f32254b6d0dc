#include "util/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/errno_error.h"

namespace gt {

AtomicFile::AtomicFile(const std::string& path, mode_t mode) : path_(path) {
  const size_t slash = path.rfind('/');
  dir_ = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  tmp_ = dir_ + "/." + base + ".tmpXXXXXX";
  // mkstemp opens with O_CREAT | O_EXCL: an existing name, a dangling link
  // included, is never opened; it tries another.
  fd_ = ::mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    error_ = errno_error(errno, "cannot create a temporary file in " + dir_);
    return;
  }
  created_ = true;
  if (::fchmod(fd_, mode) != 0) error_ = errno_error(errno, "cannot set the mode of " + tmp_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (created_ && !committed_) ::unlink(tmp_.c_str());
}

Status AtomicFile::write(std::string_view text) {
  if (error_) return *error_;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return *(error_ = errno_error(errno, "cannot write " + tmp_));
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status AtomicFile::commit() {
  if (error_) return *error_;
  const int fd = fd_;
  fd_ = -1;
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  if (::close(fd) != 0 || !synced) {
    if (!synced) errno = sync_errno;
    return *(error_ = errno_error(errno, "cannot write " + tmp_));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    return *(error_ = errno_error(errno, "cannot replace " + path_));
  committed_ = true;
  // The rename is durable only once the directory is.
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return errno_error(errno, "cannot open " + dir_ + " to sync it");
  const bool dir_synced = ::fsync(dfd) == 0;
  ::close(dfd);
  if (!dir_synced) return errno_error(errno, "cannot sync " + dir_);
  return ok_status();
}

Status write_file_atomically(const std::string& path, std::string_view text, mode_t mode) {
  AtomicFile f(path, mode);
  if (Status s = f.write(text); !s) return s;
  return f.commit();
}

}  // namespace gt
