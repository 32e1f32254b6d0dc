// /proc/self/mountinfo (proc(5)): "36 35 98:0 /mnt1 /mnt2 rw,noatime
// master:1 - ext3 /dev/root rw,errors=continue": the optional fields end at
// "-". A filesystem the kernel remounted read-only after errors keeps "rw"
// per mount but "ro" in the superblock's options.
#include "sources/fs/mount_table.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "sources/fs/block_devices.h"
#include "sources/fs/volume_path.h"

namespace gt {
namespace {

std::vector<std::string> split_mount_fields(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

bool has_option(std::string_view options, std::string_view want) {
  while (!options.empty()) {
    size_t comma = options.find(',');
    if (options.substr(0, comma) == want) return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

const std::set<std::string>& network_types() {
  static const std::set<std::string> k = {"nfs",  "nfs4",   "cifs",     "smb3",     "smbfs",
                                          "ceph", "lustre", "beegfs",   "gpfs",     "glusterfs",
                                          "9p",   "afs",    "virtiofs", "orangefs", "davfs"};
  return k;
}

bool is_overlay(const std::string& type) {
  return type == "overlay" || type == "aufs" || type == "overlayfs";
}

/// FUSE network filesystems name themselves "fuse.sshfs", "fuse.s3fs"...
bool is_network(const std::string& type) {
  return network_types().count(type) > 0 || type.starts_with("fuse.");
}

/// The entry whose mount point is the longest prefix of `path` (the last
/// one mounted there when stacked).
const MountEntry* holder_of(const std::vector<MountEntry>& table, const std::string& path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& m : table)
    if (path_under(path, m.mount_point) &&
        (!best || m.mount_point.size() >= best->mount_point.size()))
      best = &m;
  return best;
}

/// The configured mount at or above `path` with the longest mount point.
const ExpectedMount* expectation_for(const std::vector<ExpectedMount>& expected,
                                     const std::string& path) {
  const ExpectedMount* best = nullptr;
  for (const ExpectedMount& e : expected)
    if (path_under(path, e.where) && (!best || e.where.size() > best->where.size())) best = &e;
  return best;
}

bool mounted_at(const std::vector<MountEntry>& table, const std::string& where) {
  return std::any_of(table.begin(), table.end(),
                     [&](const MountEntry& m) { return m.mount_point == where; });
}

/// Adds "PATH: why" to `unread` for an error other than a missing file.
template <typename T>
bool read_or_note(const Result<T>& r, const std::string& path, std::vector<std::string>& unread) {
  if (!r && r.error().kind != ErrorKind::kNotFound)
    unread.push_back(path + ": " + r.error().message);
  return r.ok();
}

/// The units a link in a `*.wants/` or `*.requires/` folder of `dir`
/// names: those systemd starts at boot (a link is read by its name, as
/// systemd does; `systemctl enable` writes absolute targets).
std::set<std::string> wanted_units(const FsRoot& root, const std::string& dir,
                                   const std::vector<std::string>& names) {
  std::set<std::string> out;
  for (const std::string& n : names) {
    if (!n.ends_with(".wants") && !n.ends_with(".requires")) continue;
    if (Result<std::vector<std::string>> links = root.list(dir + "/" + n))
      out.insert(links->begin(), links->end());
  }
  return out;
}

/// The unit `name` of `dir`, at boot when a wants/requires link names it.
std::optional<ExpectedMount> mount_unit(const FsRoot& root, const std::string& dir,
                                        const std::string& name,
                                        const std::set<std::string>& wanted,
                                        std::vector<std::string>& unread) {
  Result<std::string> text = root.read(dir + "/" + name);
  if (!read_or_note(text, dir + "/" + name, unread)) return std::nullopt;
  std::optional<ExpectedMount> u = parse_mount_unit(*text, dir + "/" + name);
  if (!u) return std::nullopt;
  u->unit = name;
  u->at_boot = wanted.contains(name);
  if (!u->at_boot) u->origin += " (no *.wants/ or *.requires/ link to it: not started at boot)";
  return u;
}

/// The mounts /etc/fstab and the .mount units ask for, as written; what
/// could not be read goes to `unread`.
std::vector<ExpectedMount> read_configured(const FsRoot& root, std::vector<std::string>& unread) {
  std::vector<ExpectedMount> out;
  Result<std::string> fstab = root.read("/etc/fstab");
  if (read_or_note(fstab, "/etc/fstab", unread)) out = parse_fstab(*fstab);
  const std::string dir = "/etc/systemd/system";
  Result<std::vector<std::string>> names = root.list(dir);
  if (!read_or_note(names, dir, unread)) return out;
  const std::set<std::string> wanted = wanted_units(root, dir, *names);
  for (const std::string& n : *names)
    if (n.ends_with(".mount"))
      if (std::optional<ExpectedMount> u = mount_unit(root, dir, n, wanted, unread))
        out.push_back(std::move(*u));
  return out;
}

/// The configured mounts, each mount point as mount(8) and systemd use it:
/// its links followed in the root (fstab's /data, a link to /mnt/nvme0,
/// mounts at /mnt/nvme0).
std::vector<ExpectedMount> read_expected(const FsRoot& root, std::vector<std::string>& unread) {
  std::vector<ExpectedMount> out = read_configured(root, unread);
  for (ExpectedMount& e : out)
    if (Result<PathInRoot> at = resolve_in_root(root, e.where)) e.where = at->path;
  return out;
}

void describe_holder(const MountEntry& m, MountInfo& mi) {
  mi.mount_point = m.mount_point;
  mi.fs_type = m.fs_type;
  mi.source = m.source;
  mi.options = m.mount_options + (m.super_options.empty() ? "" : " (" + m.super_options + ")");
  const bool mount_ro = has_option(m.mount_options, "ro");
  const bool super_ro = has_option(m.super_options, "ro");
  mi.read_only = mount_ro || super_ro;
  mi.read_only_after_errors = super_ro && !mount_ro;
}

void set_expected(const ExpectedMount& e, MountInfo& mi) {
  mi.expected_by = e.origin;
  mi.expected_mount_point = e.where;
  mi.expected_noauto = !e.at_boot;
  mi.expected_options = e.options;
}

/// The problem of a path whose expected mount (if any) is in place.
std::optional<MountProblem> mounted_problem(const MountInfo& mi, const ExpectedMount* exact) {
  const bool expected_ro = exact && has_option(exact->options, "ro");
  if (mi.read_only_after_errors.value_or(false)) return MountProblem::kReadOnly;
  if (mi.read_only.value_or(false) && exact && !expected_ro) return MountProblem::kReadOnly;
  if (is_overlay(*mi.fs_type)) return MountProblem::kOverlay;
  if (is_network(*mi.fs_type)) return MountProblem::kNetwork;
  return std::nullopt;
}

/// The kernel names every mount table source resolves to, and swap.
std::set<std::string> devices_in_use(const FsRoot& root, const std::vector<MountEntry>& table,
                                     const BlockDevices& devs) {
  std::set<std::string> used;
  for (const MountEntry& m : table)
    if (auto dev = device_of_mount_source(root, devs, m.source)) used.insert(*dev);
  if (auto swaps = root.read("/proc/swaps"))
    for (std::string_view line : lines_of(*swaps)) {
      std::vector<std::string> w = split_mount_fields(line);
      if (!w.empty())
        if (auto dev = device_of_mount_source(root, devs, w[0])) used.insert(*dev);
    }
  return used;
}

/// Disks present that nothing mounts, uses as swap or builds on (a whole
/// disk with partitions is said by its partitions).
std::vector<std::string> unmounted_disks(const BlockDevices& devs,
                                         const std::set<std::string>& used) {
  std::vector<std::string> out;
  for (const BlockDevice& d : devs.devices) {
    if (used.count(d.name) || d.has_holders || d.has_partitions) continue;
    if (d.size_bytes && *d.size_bytes == 0) continue;
    out.push_back(describe_device(d));
  }
  return out;
}

/// Resolves the configured source; says what is known when it names no
/// device present.
void resolve_expected(const FsRoot& root, const BlockDevices& devs, const ExpectedMount& e,
                      MountInfo& mi) {
  using K = SourceResolution::Kind;
  SourceResolution r = resolve_source(root, devs, e.what);
  switch (r.kind) {
    case K::kDevice:
      mi.expected_device = r.device;
      break;
    case K::kAbsent:
      mi.expected_source_note = e.what + " names no disk present";
      break;
    case K::kUnknown:
      mi.expected_source_note = e.what + " not resolved: " +
                                (devs.notes.empty() ? "no block devices read" : devs.notes[0]);
      break;
    case K::kUnknownForm:
      mi.expected_source_note = "source '" + e.what +
                                "' is not a form mount(8) knows (UUID=, "
                                "LABEL=, PARTUUID=, a path): not resolved";
      break;
    case K::kNotADisk:
      break;
  }
}

MountInfo inspect(const FsRoot& root, const std::vector<MountEntry>& table,
                  const std::vector<ExpectedMount>& expected, const DiskUsage& d,
                  const BlockDevices& devs, const std::set<std::string>& used) {
  MountInfo mi;
  mi.path = d.path;
  // Every lookup below is of the path as resolved in the root: the mount
  // that holds /data -> /mnt/nvme0/data is /mnt/nvme0's, whatever the text.
  Result<PathInRoot> at = volume_path(root, d.path);
  if (!at) {
    mi.error = "not looked up: " + at.error().message;
    return mi;
  }
  const std::string& path = at->path;
  mi.resolved_path = path;
  mi.total_bytes = d.total_bytes;
  mi.available_bytes = d.available_bytes;
  const MountEntry* holder = holder_of(table, path);
  if (holder) describe_holder(*holder, mi);
  const ExpectedMount* e = expectation_for(expected, path);
  if (e) {
    set_expected(*e, mi);
    resolve_expected(root, devs, *e, mi);
  }
  // Not mounted where configured, and nothing mounted at or below that
  // point holds the path (a manual or CSI mount under it is a mount).
  const bool held_below = holder && e && holder->mount_point.size() > e->where.size() &&
                          path_under(holder->mount_point, e->where);
  if (e && !mounted_at(table, e->where) && !held_below) {
    mi.problem = MountProblem::kNotMounted;
    // Resolved in the tree: a link there never reaches this machine's files.
    Result<struct stat> st = root.stat(path);
    mi.plain_directory = st && S_ISDIR(st->st_mode);
    mi.unmounted_disks = unmounted_disks(devs, used);
    return mi;
  }
  if (!mi.fs_type) return mi;
  const ExpectedMount* exact = e && e->where == *mi.mount_point ? e : nullptr;
  mi.mounted_device = device_of_mount_source(root, devs, holder->source);
  // Both sides resolved to kernel names and they differ: another disk is
  // mounted where the configuration puts this one (an unresolved side is
  // unknown, never a mismatch).
  if (exact && mi.expected_device && mi.mounted_device &&
      *mi.expected_device != *mi.mounted_device) {
    mi.problem = MountProblem::kWrongDevice;
    mi.unmounted_disks = unmounted_disks(devs, used);
    return mi;
  }
  mi.problem = mounted_problem(mi, exact);
  return mi;
}

/// The space figures of the filesystem that holds `where` now, when an
/// inspected path is that filesystem's mount point (/ always is).
DiskUsage usage_of_holder(const std::vector<MountEntry>& table, const std::vector<DiskUsage>& disks,
                          const std::string& where) {
  DiskUsage u;
  u.path = where;
  const MountEntry* h = holder_of(table, where);
  for (const DiskUsage& d : disks)
    if (h && d.path == h->mount_point && !d.error) {
      u.total_bytes = d.total_bytes;
      u.available_bytes = d.available_bytes;
    }
  return u;
}

/// Every mount the configuration asks for at boot (fstab lines and units
/// without noauto) that no inspected path is under: each is inspected at
/// its own mount point, so a plain triage sees a missing /data too.
std::vector<DiskUsage> configured_points(const std::vector<ExpectedMount>& expected,
                                         const std::vector<MountEntry>& table,
                                         const std::vector<DiskUsage>& disks,
                                         const std::vector<MountInfo>& inspected) {
  std::vector<DiskUsage> out;
  std::set<std::string> seen;
  for (const MountInfo& m : inspected)
    if (m.expected_mount_point) seen.insert(*m.expected_mount_point);
  for (const ExpectedMount& e : expected) {
    if (!e.at_boot || !seen.insert(e.where).second) continue;
    out.push_back(usage_of_holder(table, disks, e.where));
  }
  return out;
}

}  // namespace

std::string unescape_octal(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() &&
        std::all_of(s.begin() + i + 1, s.begin() + i + 4,
                    [](char c) { return c >= '0' && c <= '7'; })) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool path_under(std::string_view path, std::string_view prefix) {
  if (prefix == "/") return path.starts_with("/");
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (std::string_view line : lines_of(text)) {
    std::vector<std::string> w = split_mount_fields(line);
    auto dash = std::find(w.begin(), w.end(), "-");
    if (w.size() < 6 || dash == w.end() || dash - w.begin() < 6 || w.end() - dash < 3) continue;
    MountEntry m;
    m.root = unescape_octal(w[3]);
    m.mount_point = unescape_octal(w[4]);
    m.mount_options = w[5];
    m.fs_type = *(dash + 1);
    m.source = unescape_octal(*(dash + 2));
    if (w.end() - dash >= 4) m.super_options = *(dash + 3);
    out.push_back(m);
  }
  return out;
}

std::vector<ExpectedMount> parse_fstab(std::string_view text) {
  std::vector<ExpectedMount> out;
  int n = 0;
  for (std::string_view line : lines_of(text)) {
    ++n;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> w = split_mount_fields(t);
    if (w.size() < 2) continue;
    ExpectedMount e;
    e.what = unescape_octal(w[0]);
    e.where = unescape_octal(w[1]);
    e.type = w.size() > 2 ? w[2] : "auto";
    e.options = w.size() > 3 ? w[3] : "defaults";
    if (e.type == "swap" || !e.where.starts_with("/")) continue;
    if (e.where.size() > 1 && e.where.ends_with("/")) e.where.pop_back();
    e.origin = "/etc/fstab:" + std::to_string(n) + ": " + t;
    e.at_boot = !has_option(e.options, "noauto");
    out.push_back(e);
  }
  return out;
}

std::optional<ExpectedMount> parse_mount_unit(std::string_view text, const std::string& file) {
  ExpectedMount e;
  e.type = "auto";
  e.options = "defaults";
  bool in_mount = false;
  for (std::string_view raw : lines_of(text)) {
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      in_mount = line == "[Mount]";
      continue;
    }
    size_t eq = line.find('=');
    if (!in_mount || eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "Where") e.where = value;
    if (key == "What") e.what = value;
    if (key == "Type") e.type = value;
    if (key == "Options") e.options = value;
  }
  if (!e.where.starts_with("/")) return std::nullopt;
  while (e.where.size() > 1 && e.where.back() == '/') e.where.pop_back();
  e.origin = file + ": What=" + e.what + " Where=" + e.where;
  return e;
}

std::vector<MountInfo> read_mounts(const FsRoot& root, const std::vector<DiskUsage>& disks,
                                   std::vector<std::string>* unread) {
  std::vector<MountInfo> out;
  std::vector<std::string> not_read;
  Result<std::string> text = root.read("/proc/self/mountinfo");
  std::vector<MountEntry> table;
  // Missing (a fixture tree without /proc): each path's error says so.
  if (read_or_note(text, "/proc/self/mountinfo", not_read)) table = parse_mountinfo(*text);
  const std::vector<ExpectedMount> expected = read_expected(root, not_read);
  if (unread) *unread = std::move(not_read);
  const BlockDevices devs = read_block_devices(root);
  const std::set<std::string> used = devices_in_use(root, table, devs);
  for (const DiskUsage& d : disks) {
    if (!text) {
      MountInfo mi;
      mi.path = d.path;
      mi.error = "mount table not read: " + text.error().message;
      out.push_back(mi);
      continue;
    }
    out.push_back(inspect(root, table, expected, d, devs, used));
  }
  if (!text) return out;
  for (const DiskUsage& d : configured_points(expected, table, disks, out)) {
    MountInfo mi = inspect(root, table, expected, d, devs, used);
    mi.configured_only = true;
    out.push_back(std::move(mi));
  }
  return out;
}

}  // namespace gt
