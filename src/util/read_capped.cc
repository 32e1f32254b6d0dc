#include "util/read_capped.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/errno_error.h"

namespace gt {

namespace {

std::string mib_text(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

Result<std::string> read_fd_capped(int fd, const std::string& name, uint64_t max_bytes,
                                   const std::string& what) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(errno, "cannot read " + name);
    }
    if (n == 0) return out;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes)
      return Error{ErrorKind::kMalformed,
                   name + " is larger than " + mib_text(max_bytes) + ", the limit for " + what};
    out.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> read_file_capped(const std::string& path, uint64_t max_bytes,
                                     const std::string& what) {
  if (path == "-") return read_fd_capped(0, "standard input", max_bytes, what);
  // O_NONBLOCK: a FIFO's open does not wait for a writer; it is then
  // refused by its kind, as every other file that is not a regular one.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot open " + path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorKind::kMalformed,
                 path + " is not a regular file: " + what + " are read from one"};
  }
  Result<std::string> r = read_fd_capped(fd, path, max_bytes, what);
  ::close(fd);
  return r;
}

}  // namespace gt
