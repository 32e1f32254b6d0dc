// The one way this tool replaces a file it owns (the history record, the
// node-exporter textfile, --resume-list, --write-manifest): a temporary file
// made with mkstemp in the same directory (O_EXCL: a link or file planted at
// its name is refused, never followed or truncated), written, fsync'd,
// renamed over the target, and the directory fsync'd so the rename itself
// survives a crash. rename replaces a link planted at the target name; it
// never writes through it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace gt {

/// A temporary file beside `path`, renamed over it by commit(); removed when
/// destroyed uncommitted. Errors stick: after one, write and commit return it.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path, mode_t mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status write(std::string_view text);
  /// fsync, rename over the target, fsync the directory.
  Status commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  std::string path_, dir_, tmp_;
  int fd_ = -1;
  bool created_ = false, committed_ = false;
  std::optional<Error> error_;
};

/// `text` as the whole content of `path`, replaced atomically (AtomicFile).
Status write_file_atomically(const std::string& path, std::string_view text, mode_t mode = 0644);

}  // namespace gt
