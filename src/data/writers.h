// Is the job still writing? Processes holding a file under DIR open for
// writing, from /proc/<pid>/fd (the link names the file) and
// /proc/<pid>/fdinfo/<fd> (its `flags:` say O_WRONLY or O_RDWR), read
// through an FsRoot so tests replay a fixture tree.
#pragma once

#include <string>
#include <vector>

#include "data/scan.h"
#include "util/fs_root.h"

namespace gt {

struct Writer {
  int pid = 0;
  std::string comm;  ///< /proc/<pid>/comm, "" when unreadable
  std::string path;  ///< the file it has open for writing
};

/// Processes whose open files could not be checked: their /proc/PID/fd
/// exists but cannot be listed (another user's, when not root). Kernel
/// threads, which write no file, are not counted.
struct UnseenWriters {
  std::vector<int> pids;  ///< the first few
  size_t count = 0;
};

/// Writers of files under any of `abs_dirs` (absolute, resolved). At most
/// `limit` are returned; processes that vanish are skipped; those whose
/// descriptors cannot be read are counted in `unseen` when given.
std::vector<Writer> find_writers(const FsRoot& root, const std::vector<std::string>& abs_dirs,
                                 size_t limit = 20, UnseenWriters* unseen = nullptr);

/// What a reader must say when `unseen` has any: whose open files could not
/// be checked, so a writer of DIR's files cannot be ruled out; "" if none.
std::string unseen_writers_words(const UnseenWriters& unseen);

/// "pid 4242 (python3)", or "pid 4242" when its name could not be read: the
/// writer as every message names it.
std::string writer_name(const Writer& w);

/// "pid 4242 (python3) has /data/x/7.ckpt open for writing".
std::string writer_line(const Writer& w);

/// Marks each file of `scan` that one of `writers` has open for writing as
/// being written, the writer's name as its message (DIRs resolved with
/// real_path; the walk follows no link, so DIR's real path and rel name the
/// file as /proc/<pid>/fd does). Returns how many were marked.
size_t mark_being_written(DirScan& scan, const std::vector<Writer>& writers);

/// Every writer of files under `dirs` as given: each is resolved first
/// (real_path); one that does not resolve has no writers.
std::vector<Writer> writers_under(const FsRoot& root, const std::vector<std::string>& dirs,
                                  UnseenWriters* unseen = nullptr);

/// The first `limit` writers' lines (writer_line).
std::vector<std::string> writer_lines(const std::vector<Writer>& writers, size_t limit = 20);

/// writer_lines(writers_under(root, dirs), limit).
std::vector<std::string> writer_lines(const FsRoot& root, const std::vector<std::string>& dirs,
                                      size_t limit = 20);

}  // namespace gt
