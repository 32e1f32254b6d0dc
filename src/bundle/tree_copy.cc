#include "bundle/tree_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "util/path_in_root.h"

namespace gt {
namespace {

/// Keeps the last `cap` bytes of what `fd` gives until EOF or EAGAIN. On
/// /dev/kmsg each read() is one record; EPIPE (a record overwritten while
/// reading) skips on.
std::string read_tail(int fd, uint64_t cap) {
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EPIPE) continue;
      break;  // EAGAIN: the ring buffer is read; anything else ends it too
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > 2 * cap) out.erase(0, out.size() - cap);
  }
  if (out.size() > cap) out.erase(0, out.size() - cap);
  return out;
}

/// True when some other logged path lies below `path`: the collectors went
/// through it (a /sys link to a device folder), so it is a folder here.
bool is_passed_through(const std::set<std::string>& paths, const std::string& path) {
  auto it = paths.upper_bound(path + "/");
  if (it != paths.end() && it->starts_with(path + "/")) return true;
  it = paths.find(path + "/");
  return it != paths.end();
}

void copy_opened(const FsRoot& root, const std::string& path, uint64_t cap, TreeCopy& out) {
  Result<struct stat> st = root.stat(path);
  if (!st) {
    out.notes.push_back(path + ": gone before it was copied (" + st.error().message + ")");
    return;
  }
  const bool kmsg = S_ISCHR(st->st_mode) && path == "/dev/kmsg";
  if (S_ISDIR(st->st_mode)) {
    out.entries.push_back({TreeEntry::Type::kFolder, "root" + path, {}, {}});
    return;
  }
  if (!S_ISREG(st->st_mode) && !kmsg) {
    out.notes.push_back(path + ": not a regular file (a device or FIFO), not copied");
    return;
  }
  Result<int> fd = root.open(path, O_RDONLY | O_NONBLOCK);
  if (!fd) {
    out.notes.push_back(path + ": " + fd.error().message);
    return;
  }
  // /dev/kmsg starts at the oldest record still buffered.
  if (kmsg) ::lseek(*fd, 0, SEEK_SET);
  std::string bytes = read_tail(*fd, cap);
  ::close(*fd);
  if (static_cast<uint64_t>(st->st_size) > cap && S_ISREG(st->st_mode))
    out.notes.push_back(path + ": its last " + std::to_string(cap) + " of " +
                        std::to_string(st->st_size) + " bytes copied");
  out.entries.push_back({TreeEntry::Type::kFile, "root" + path, std::move(bytes), {}});
}

/// A path a collector only found (stat, exists, resolve): a link stays a
/// link (its target found too), a folder a folder, anything else an empty
/// stand-in file, as the fixture trees stand in for device nodes.
void copy_found(const FsRoot& root, const std::string& path, TreeCopy& out,
                std::vector<std::string>& more) {
  if (std::optional<std::string> target = root.read_link(path)) {
    out.entries.push_back({TreeEntry::Type::kLink, "root" + path, {}, *target});
    if (Result<std::string> host = root.resolve(path)) more.push_back(root.node_path(*host));
    return;
  }
  Result<struct stat> st = root.stat(path);
  if (!st) return;
  if (S_ISDIR(st->st_mode)) {
    out.entries.push_back({TreeEntry::Type::kFolder, "root" + path, {}, {}});
    return;
  }
  out.entries.push_back({TreeEntry::Type::kFile, "root" + path, {}, {}});
  out.notes.push_back(path + ": found, not read: an empty stand-in");
}

/// A /sys link a collector read and went through (/sys/bus/pci/devices/X,
/// whose target is the device's place in the PCIe tree) is kept as the
/// link, and what was read through it moves to where it leads inside the
/// root, so the replay finds both the files and the path (the bridges above
/// a GPU). Other links gone through stay folders of their own entries.
void keep_sys_links(const FsRoot& root, std::vector<ReadEntry>& log) {
  for (size_t i = 0; i < log.size(); ++i) {
    const std::string link = log[i].path;
    if (log[i].kind != ReadEntry::Kind::kLink || !link.starts_with("/sys/")) continue;
    const std::string below = link + "/";
    if (std::none_of(log.begin(), log.end(),
                     [&](const ReadEntry& e) { return e.path.starts_with(below); }))
      continue;
    Result<PathInRoot> at = resolve_in_root(root, link);
    if (!at || !at->exists || at->path == link || at->path.starts_with(below) ||
        below.starts_with(at->path + "/"))
      continue;
    for (ReadEntry& e : log)
      if (e.path.starts_with(below)) e.path = at->path + e.path.substr(link.size());
  }
}

/// The order of precedence when a path was asked for in several ways:
/// what was read wins over what was only found.
int rank(ReadEntry::Kind k) {
  switch (k) {
    case ReadEntry::Kind::kFile:
      return 0;
    case ReadEntry::Kind::kOpened:
      return 1;
    case ReadEntry::Kind::kFolder:
      return 2;
    case ReadEntry::Kind::kLink:
      return 3;
    case ReadEntry::Kind::kStated:
      return 4;
  }
  return 4;
}

}  // namespace

TreeCopy copy_read_files(const FsRoot& root, const std::vector<ReadEntry>& log,
                         uint64_t file_cap_bytes) {
  TreeCopy out;
  std::vector<ReadEntry> kept = log;
  keep_sys_links(root, kept);
  std::vector<ReadEntry> sorted = kept;
  std::stable_sort(sorted.begin(), sorted.end(), [](const ReadEntry& a, const ReadEntry& b) {
    return rank(a.kind) < rank(b.kind);
  });
  std::set<std::string> paths;
  for (const ReadEntry& e : kept) paths.insert(e.path);
  std::set<std::string> done;     // a path is one entry: the first kind that can be copied
  std::vector<std::string> more;  // the targets of links found
  for (const ReadEntry& e : sorted) {
    if (e.path.empty() || e.path[0] != '/' || !done.insert(e.path).second) continue;
    switch (e.kind) {
      case ReadEntry::Kind::kFile:
        if (!e.bytes) {
          out.notes.push_back(e.path + ": read, but past the bytes kept of all reads");
          continue;
        }
        out.entries.push_back({TreeEntry::Type::kFile, "root" + e.path, *e.bytes, {}});
        break;
      case ReadEntry::Kind::kFolder:
        out.entries.push_back({TreeEntry::Type::kFolder, "root" + e.path, {}, {}});
        break;
      case ReadEntry::Kind::kLink:
        if (is_passed_through(paths, e.path)) continue;  // a folder of its own entries
        out.entries.push_back({TreeEntry::Type::kLink, "root" + e.path, {}, *e.target});
        break;
      case ReadEntry::Kind::kOpened:
        if (is_passed_through(paths, e.path)) continue;
        copy_opened(root, e.path, file_cap_bytes, out);
        break;
      case ReadEntry::Kind::kStated:
        if (is_passed_through(paths, e.path)) continue;
        copy_found(root, e.path, out, more);
        break;
    }
  }
  // A link's target, once (a chain of links is followed this way too).
  for (size_t i = 0; i < more.size() && i < 4096; ++i)
    if (!paths.count(more[i]) && done.insert(more[i]).second) copy_found(root, more[i], out, more);
  return out;
}

}  // namespace gt
