// statvfs(2) through util/fs_space (an unlimited inode count is null,
// never "0 inodes free"), once per filesystem (st_dev), of each path as
// resolved in the root (sources/fs/volume_path). A fixture tree (a scenario,
// the demo) cannot hold its node's filesystems, so it writes the figures
// their statvfs would give in <root>/.gt-fixture/statvfs, one line per
// mount point: "MOUNT TOTAL_BYTES AVAILABLE_BYTES INODES INODES_FREE"
// ("-" for an unlimited inode count); a path takes its longest listed mount.
// A live node has no such file.
#include "sources/fs/disk_usage.h"

#include <sys/stat.h>

#include <cerrno>
#include <map>
#include <set>
#include <sstream>

#include "sources/fs/volume_path.h"
#include "util/errno_error.h"
#include "util/fs_space.h"

namespace gt {

namespace {

constexpr const char* kFixtureStatvfs = "/.gt-fixture/statvfs";

std::optional<uint64_t> inode_figure(const std::string& word) {
  if (word == "-") return std::nullopt;
  return std::stoull(word);
}

/// The fixture's filesystems by mount point; nullopt on a live node (no
/// file). A malformed line is an error: the tree is the tool's own.
Result<std::optional<std::map<std::string, FsSpace>>> fixture_filesystems(const FsRoot& root) {
  std::optional<std::string> text = root.read_optional_trimmed(kFixtureStatvfs);
  if (!text) return std::optional<std::map<std::string, FsSpace>>();
  std::map<std::string, FsSpace> out;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string mount, total, avail, inodes, free;
    if (!(in >> mount >> total >> avail >> inodes >> free) || !mount.starts_with("/"))
      return Error{ErrorKind::kMalformed,
                   std::string(kFixtureStatvfs) + ": not MOUNT TOTAL AVAIL INODES FREE: " + line};
    try {
      out[mount] =
          FsSpace{std::stoull(total), std::stoull(avail), inode_figure(inodes), inode_figure(free)};
    } catch (const std::exception&) {
      return Error{ErrorKind::kMalformed,
                   std::string(kFixtureStatvfs) + ": not a number in: " + line};
    }
  }
  return std::optional<std::map<std::string, FsSpace>>(std::move(out));
}

/// The listed mount that holds `path` (the longest prefix on a component).
const std::pair<const std::string, FsSpace>* mount_of(const std::map<std::string, FsSpace>& fs,
                                                      const std::string& path) {
  const std::pair<const std::string, FsSpace>* best = nullptr;
  for (const auto& entry : fs) {
    const std::string& m = entry.first;
    bool under = m == "/" || path == m || (path.starts_with(m) && path[m.size()] == '/');
    if (under && (!best || m.size() > best->first.size())) best = &entry;
  }
  return best;
}

void set_space(DiskUsage& d, const FsSpace& space) {
  d.total_bytes = space.total_bytes;
  d.available_bytes = space.available_bytes;
  d.inodes_total = space.inodes_total;
  d.inodes_available = space.inodes_available;
}

/// The filesystem that holds a path, as read: `key` names it (a fixture's
/// mount, else the st_dev).
struct FsRead {
  std::string key;
  FsSpace space;
};

/// The path's filesystem: its links followed in the tree (an absolute
/// target is the tree's, never this machine's), then the fixture's figures
/// for its mount or statvfs.
Result<FsRead> read_one(const FsRoot& root, const std::string& p,
                        const std::optional<std::map<std::string, FsSpace>>& fixture) {
  Result<PathInRoot> at = volume_path(root, p);
  if (!at) return at.error();
  const std::string real = root.path(at->path);
  struct stat st;
  if (::stat(real.c_str(), &st) != 0) return errno_error(errno, "cannot read " + p);
  if (fixture) {
    const auto* mount = mount_of(*fixture, at->path);
    if (!mount)
      return Error{ErrorKind::kNotFound,
                   "cannot read " + p + ": no filesystem in " + kFixtureStatvfs};
    return FsRead{mount->first, mount->second};
  }
  Result<FsSpace> space = read_fs_space(real, p);
  if (!space) return space.error();
  return FsRead{std::to_string(st.st_dev), *space};
}

}  // namespace

std::vector<DiskUsage> read_disk_usage(const FsRoot& root, const std::vector<std::string>& paths) {
  Result<std::optional<std::map<std::string, FsSpace>>> fixture = fixture_filesystems(root);
  std::vector<DiskUsage> out;
  // One filesystem, one set of numbers: those read for its first path (a
  // second statvfs a moment later can differ while others write).
  std::map<std::string, std::pair<std::string, FsSpace>> first_on;  // key -> path, numbers
  std::set<std::string> given;
  for (const std::string& p : paths) {
    if (!given.insert(p).second) continue;
    DiskUsage d;
    d.path = p;
    // A malformed fixture is said on each path, never a fallback to this machine.
    Result<FsRead> read = fixture ? read_one(root, p, *fixture) : Result<FsRead>(fixture.error());
    if (!read) {
      d.error = read.error().message;
      out.push_back(d);
      continue;
    }
    auto [at, fresh] = first_on.emplace(read->key, std::make_pair(p, read->space));
    if (!fresh) d.same_filesystem_as = at->second.first;
    set_space(d, at->second.second);
    out.push_back(d);
  }
  return out;
}

}  // namespace gt
