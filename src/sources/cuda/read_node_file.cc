#include "sources/cuda/read_node_file.h"

#include <fcntl.h>
#include <unistd.h>

#include "util/read_capped.h"

namespace gt {

Result<std::string> read_node_file(const FsRoot& root, const std::string& node_path,
                                   uint64_t max_bytes, const std::string& what) {
  Result<int> fd = root.open(node_path, O_RDONLY | O_CLOEXEC);
  if (!fd) return fd.error();
  Result<std::string> bytes = read_fd_capped(*fd, node_path, max_bytes, what);
  ::close(*fd);
  return bytes;
}

}  // namespace gt
