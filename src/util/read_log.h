// ReadLog: the files an FsRoot was asked for, in the order asked, so that
// `gpu-triage bundle` copies exactly what the collectors read (issue 37)
// and nothing else of the node. A file read whole keeps the bytes the
// collector saw (a /proc file changes between two reads); a file opened
// for the caller to read, a folder listed and a link read keep their path
// (and the link its target). Collectors run on several threads (each GPU's
// processes are read on the GPU's thread): every call takes a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gt {

/// One thing a collector asked an FsRoot for, by its path on the node.
struct ReadEntry {
  enum class Kind { kFile, kOpened, kFolder, kLink, kStated };
  Kind kind = Kind::kFile;
  std::string path;                   ///< as the node sees it ("/proc/1/stat")
  std::optional<std::string> bytes;   ///< kFile: what read() returned (at most the cap)
  bool cut = false;                   ///< kFile: bytes beyond the cap were not kept
  std::optional<std::string> target;  ///< kLink: the link's text
};

class ReadLog {
 public:
  /// `bytes_cap`: the bytes kept of all files together; a read past it is
  /// still logged by path, its bytes dropped (cut).
  explicit ReadLog(uint64_t bytes_cap = 256ull << 20) : bytes_cap_(bytes_cap) {}

  void file(const std::string& path, const std::string& bytes);
  void opened(const std::string& path);
  void folder(const std::string& path);
  void link(const std::string& path, const std::string& target);
  /// Found by stat() or exists(): copied when it is a regular file or folder.
  void stated(const std::string& path);

  /// Everything logged, first ask of each path first; a path asked again is
  /// not logged twice (a file keeps its first bytes).
  std::vector<ReadEntry> entries() const;

 private:
  void add(ReadEntry e);
  mutable std::mutex mu_;
  std::vector<ReadEntry> entries_;
  std::set<std::pair<ReadEntry::Kind, std::string>> seen_;
  uint64_t bytes_cap_;
  uint64_t bytes_kept_ = 0;
};

}  // namespace gt
