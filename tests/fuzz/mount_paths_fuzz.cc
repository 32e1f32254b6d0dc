// Mount path resolution (issue 32): the path a --path/--data value stands
// for, its links followed inside a --root tree (util/path_in_root,
// sources/fs/volume_path), and the mount, fstab line, statvfs and block
// device judged by it. Input: the path on the first line, then entries of
// the tree, one a line: "L NAME TARGET" (a symbolic link, TARGET verbatim),
// "D NAME" (a folder), "F NAME" (a file); NAME absolute, not under /proc,
// /sys or /etc. The tree is made afresh per input beside a fixed node: /
// (ext4), /dev/shm (tmpfs) and /mnt/models (xfs, /dev/mapper/vg0-models)
// mounted, /mnt/nvme0 and /mnt/lvm in fstab (the latter /dev/vg0/data) but
// not mounted, block devices nvme1n1, dm-3 and md127. Besides no crash, it
// traps when:
//   - the resolution is not absolute and clean ("//", ".", ".." or a link
//     left), or what it says exists leads out of the tree;
//   - the mount entry of the path differs from that of its resolution (the
//     lookups must be of the resolved path, never of the text);
//   - a /dev path's device differs from its resolution's.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/fs/block_devices.h"
#include "sources/fs/disk_usage.h"
#include "sources/fs/mount_table.h"
#include "sources/fs/volume_path.h"
#include "tree_target.h"
#include "util/path_in_root.h"
#include "util/real_path.h"

namespace mount_paths_fuzz {

constexpr size_t kMaxEntries = 64;
constexpr size_t kMaxNameBytes = 256;

std::vector<std::string_view> input_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

void fixed_node(const gt::fuzz::ScratchTree& t) {
  t.write("/proc/self/mountinfo",
          "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
          "40 22 0:26 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=65536k\n"
          "41 22 253:4 / /mnt/models rw,relatime shared:5 - xfs /dev/mapper/vg0-models rw\n");
  t.write(
      "/etc/fstab",
      "UUID=abc / ext4 defaults 0 1\n/dev/nvme1n1p1 /mnt/nvme0 ext4 defaults,nofail 0 2\n"
      "/dev/vg0/data /mnt/lvm ext4 defaults 0 2\n/dev/md/scratch /mnt/scratch xfs defaults 0 2\n");
  t.write("/sys/class/block/vda1/size", "100\n");
  t.write("/sys/class/block/nvme1n1/size", "100\n");
  t.write("/sys/class/block/dm-3/size", "100\n");
  t.write("/sys/class/block/dm-3/dm/name", "vg0-data\n");
  t.write("/sys/class/block/dm-4/size", "100\n");
  t.write("/sys/class/block/dm-4/dm/name", "vg0-models\n");
  t.write("/sys/class/block/md127/size", "100\n");
  t.link("../../vda1", "/dev/disk/by-uuid/abc");
  t.write("/mnt/nvme0/.keep", "");
  t.write("/mnt/models/.keep", "");
  t.write("/dev/shm/.keep", "");
}

/// NAME is absolute and short, each part of it neither empty, "." nor
/// ".." nor NUL, not under /proc, /sys or /etc (the fixed node stays as it
/// is), and no part of it is in the tree already but as a folder: making
/// it can never write through a link out of the tree.
bool safe_name(const gt::fuzz::ScratchTree& t, std::string_view name) {
  if (!name.starts_with('/') || name.size() < 2 || name.size() > kMaxNameBytes ||
      name.find('\0') != std::string_view::npos)
    return false;
  for (std::string_view top : {"/proc", "/sys", "/etc"})
    if (gt::path_under(name, top)) return false;
  std::string prefix = t.root().root();
  for (size_t i = 1; i <= name.size();) {
    const size_t slash = std::min(name.find('/', i), name.size());
    const std::string_view c = name.substr(i, slash - i);
    if (c.empty() || c == "." || c == "..") return false;
    prefix += "/" + std::string(c);
    struct stat st;
    if (::lstat(prefix.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return false;
    i = slash + 1;
  }
  return true;
}

void make_entry(const gt::fuzz::ScratchTree& t, std::string_view line) {
  if (line.size() < 3 || line[1] != ' ') return;
  std::string_view rest = line.substr(2);
  const size_t sp = rest.find(' ');
  const std::string_view name = rest.substr(0, sp);
  if (!safe_name(t, name)) return;
  std::error_code ec;
  const std::string host = t.root().path(std::string(name));
  if (line[0] == 'L' && sp != std::string_view::npos) {
    std::filesystem::create_directories(std::filesystem::path(host).parent_path(), ec);
    std::filesystem::create_symlink(std::string(rest.substr(sp + 1)), host, ec);
  } else if (line[0] == 'D') {
    std::filesystem::create_directories(host, ec);
  } else if (line[0] == 'F') {
    t.write(std::string(name), "");
  }
}

void clear(const gt::fuzz::ScratchTree& t) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(t.root().root(), ec))
    std::filesystem::remove_all(e.path(), ec);
}

/// Absolute, no empty, "." or ".." component, no link on the way.
bool clean(const gt::FsRoot& root, const gt::PathInRoot& r) {
  if (!r.path.starts_with('/') || (r.path.size() > 1 && r.path.ends_with('/'))) return false;
  std::string sofar;
  for (size_t i = 1; i < r.path.size();) {
    const size_t slash = std::min(r.path.find('/', i), r.path.size());
    const std::string c = r.path.substr(i, slash - i);
    if (c.empty() || c == "." || c == "..") return false;
    sofar += "/" + c;
    struct stat st;
    if (r.exists && (::lstat(root.path(sofar).c_str(), &st) != 0 || S_ISLNK(st.st_mode)))
      return false;
    i = slash + 1;
  }
  return true;
}

bool same_lookup(const gt::MountInfo& a, const gt::MountInfo& b) {
  return a.resolved_path == b.resolved_path && a.mount_point == b.mount_point &&
         a.fs_type == b.fs_type && a.expected_mount_point == b.expected_mount_point &&
         a.problem == b.problem && a.expected_device == b.expected_device &&
         a.mounted_device == b.mounted_device;
}

gt::DiskUsage disk(const std::string& path) {
  gt::DiskUsage d;
  d.path = path;
  return d;
}

}  // namespace mount_paths_fuzz

GT_FUZZ_TARGET(mount_paths) {
  using namespace mount_paths_fuzz;
  static const gt::fuzz::ScratchTree t;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> lines = input_lines(text);
  clear(t);
  fixed_node(t);
  for (size_t i = 1; i < lines.size() && i <= kMaxEntries; ++i) make_entry(t, lines[i]);
  const gt::FsRoot root = t.root();
  const std::string path = lines.empty() ? "" : std::string(lines[0]);

  gt::Result<gt::PathInRoot> r = gt::volume_path(root, path);
  if (r) {
    if (!clean(root, *r)) __builtin_trap();
    if (r->exists) {  // what exists is inside the tree, as the host resolves it
      const std::optional<std::string> host = gt::real_path(root.path(r->path));
      const std::optional<std::string> top = gt::real_path(root.root());
      if (!host || !top || !gt::path_under(*host, *top)) __builtin_trap();
    }
  }
  gt::Report report;
  report.snapshot.disks = gt::read_disk_usage(root, {"/", path});
  report.snapshot.mounts = gt::read_mounts(root, report.snapshot.disks);
  if (r) {
    // The two asked for come first; fstab's mounts that neither is under
    // follow as configured_only entries (issue 31).
    const std::vector<gt::MountInfo> m = gt::read_mounts(root, {disk(path), disk(r->path)});
    if (m.size() < 2 || m[0].configured_only || m[1].configured_only || !same_lookup(m[0], m[1]))
      __builtin_trap();
    const gt::BlockDevices devs = gt::read_block_devices(root);
    if (path.starts_with("/dev/") && r->path.starts_with("/dev/") &&
        gt::device_of_mount_source(root, devs, path) !=
            gt::device_of_mount_source(root, devs, r->path))
      __builtin_trap();
  }
  gt::judge_and_render(report);
  return 0;
}
