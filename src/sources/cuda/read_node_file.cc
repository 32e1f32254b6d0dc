#include "sources/cuda/read_node_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/read_capped.h"

namespace gt {

Result<std::string> read_node_file(const FsRoot& root, const std::string& node_path,
                                   uint64_t max_bytes, const std::string& what) {
  // O_NONBLOCK: a FIFO planted where a file belongs must not hang the open.
  Result<int> fd = root.open(node_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(*fd);
    return Error{ErrorKind::kUnsupported, node_path + " is not a regular file (" + what + ")"};
  }
  Result<std::string> bytes = read_fd_capped(*fd, node_path, max_bytes, what);
  ::close(*fd);
  return bytes;
}

}  // namespace gt
