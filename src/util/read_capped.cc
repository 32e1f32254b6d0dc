#include "util/read_capped.h"

#include <fcntl.h>
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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot open " + path);
  Result<std::string> r = read_fd_capped(fd, path, max_bytes, what);
  ::close(fd);
  return r;
}

}  // namespace gt
