#include "render/textfile.h"

#include "util/atomic_file.h"

namespace gt {

Status write_textfile_atomically(const std::string& dir, const std::string& content) {
  return write_file_atomically(dir + "/" + kTextfileName, content, 0644);
}

}  // namespace gt
