// /sys/class/block/NAME holds each block device (a partition has a
// "partition" file, a whole disk lists its partitions as subdirectories,
// "size" counts 512-byte sectors whatever the logical block size, "holders/"
// names the dm/md devices built on it, "dm/name" a device-mapper name).
// udev's /dev/disk/by-uuid|by-label|by-partuuid links point at
// "../../NAME"; their names escape unsafe characters as \xHH
// (udev_util_encode_string), as the label "my data" is "my\x20data".
// LVM's /dev/VG/LV, /dev/mapper/VG-LV and mdadm's /dev/md/NAME are udev
// links too ("../dm-3", "../md127"): every /dev path is followed in the root.
#include "sources/fs/block_devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/numeric.h"
#include "util/path_in_root.h"

namespace gt {
namespace {

std::string basename_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// "my\x20data" -> "my data".
std::string decode_udev(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && std::isxdigit(s[i + 2]) &&
        std::isxdigit(s[i + 3])) {
      out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Device names that are never a data volume.
bool ignored(const std::string& name) {
  for (const char* p : {"loop", "ram", "zram", "sr", "fd", "nbd"})
    if (name.starts_with(p)) return true;
  return false;
}

BlockDevice read_block_device(const FsRoot& root, const std::string& name) {
  const std::string dir = "/sys/class/block/" + name;
  BlockDevice d;
  d.name = name;
  d.partition = root.exists(dir + "/partition");
  if (auto sectors = root.read_optional_trimmed(dir + "/size"))
    if (std::optional<uint64_t> n = parse_int<uint64_t>(*sectors); n && *n < (uint64_t(1) << 44))
      d.size_bytes = *n * 512;
  if (Result<std::vector<std::string>> h = root.list(dir + "/holders")) d.has_holders = !h->empty();
  d.dm_name = root.read_optional_trimmed(dir + "/dm/name");
  return d;
}

/// Fills uuids/labels/partuuids from one /dev/disk/by-* directory.
bool read_links(const FsRoot& root, const std::string& dir, std::vector<BlockDevice>& devs,
                std::vector<std::string> BlockDevice::*field) {
  Result<std::vector<std::string>> names = root.list(dir);
  if (!names) return false;
  for (const std::string& n : *names) {
    std::optional<std::string> target = root.read_link(dir + "/" + n);
    if (!target) continue;
    const std::string dev = basename_of(*target);
    for (BlockDevice& d : devs)
      if (d.name == dev) (d.*field).push_back(decode_udev(n));
  }
  return true;
}

/// The kernel name a /dev path stands for: udev's links (/dev/disk/by-*/X,
/// an LVM volume /dev/VG/LV, /dev/md/NAME, /dev/mapper/NAME: "../dm-3",
/// "../md127", "../../nvme1n1p1") followed inside the root, then
/// "/dev/NAME", or "/dev/mapper/NAME" (a device node) by sysfs's dm/name;
/// nullopt when it leads elsewhere or cannot be followed.
std::optional<std::string> kernel_name_at(const FsRoot& root, const BlockDevices& devs,
                                          const std::string& dev_path) {
  if (!dev_path.starts_with("/dev/")) return std::nullopt;
  Result<PathInRoot> at = resolve_in_root(root, dev_path);
  if (!at || !at->path.starts_with("/dev/")) return std::nullopt;
  if (at->path.starts_with("/dev/mapper/")) {
    const std::string dm = at->path.substr(12);
    for (const BlockDevice& d : devs.devices)
      if (d.dm_name == dm) return d.name;
    return std::nullopt;
  }
  std::string name = at->path.substr(5);
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  return name;
}

std::string size_text(uint64_t bytes) {
  if (bytes >= 1'000'000'000'000ull) return fmt::format("{:.1f} TB", bytes / 1e12);
  return fmt::format("{:.1f} GB", bytes / 1e9);
}

std::string unquote(std::string s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

BlockDevices read_block_devices(const FsRoot& root) {
  BlockDevices out;
  Result<std::vector<std::string>> names = root.list("/sys/class/block");
  if (!names) {
    out.notes.push_back("/sys/class/block not read: " + names.error().message);
    return out;
  }
  for (const std::string& n : *names)
    if (!ignored(n)) out.devices.push_back(read_block_device(root, n));
  // A whole disk whose partitions are listed: its partitions are the
  // volumes (nvme1n1p1 under nvme1n1, sda1 under sda).
  for (BlockDevice& disk : out.devices)
    if (!disk.partition)
      disk.has_partitions = std::any_of(out.devices.begin(), out.devices.end(), [&](auto& p) {
        return p.partition && p.name.starts_with(disk.name) &&
               root.exists("/sys/class/block/" + disk.name + "/" + p.name);
      });
  bool any = false;
  any |= read_links(root, "/dev/disk/by-uuid", out.devices, &BlockDevice::uuids);
  any |= read_links(root, "/dev/disk/by-label", out.devices, &BlockDevice::labels);
  any |= read_links(root, "/dev/disk/by-partuuid", out.devices, &BlockDevice::partuuids);
  out.by_links_read = any;
  if (!any)
    out.notes.push_back(
        "/dev/disk/by-uuid, by-label and by-partuuid are not present (no udev, a container): "
        "UUID=, LABEL= and PARTUUID= sources are not resolved");
  return out;
}

SourceResolution resolve_source(const FsRoot& root, const BlockDevices& devs,
                                const std::string& spec) {
  using K = SourceResolution::Kind;
  auto find = [&](auto pred) -> SourceResolution {
    for (const BlockDevice& d : devs.devices)
      if (pred(d)) return {K::kDevice, d.name};
    return {devs.by_links_read ? K::kAbsent : K::kUnknown, ""};
  };
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  const size_t eq = spec.find('=');
  if (!spec.starts_with("/") && eq != std::string::npos) {
    const std::string tag = spec.substr(0, eq), value = unquote(spec.substr(eq + 1));
    if (tag == "UUID") return find([&](const BlockDevice& d) { return has(d.uuids, value); });
    if (tag == "LABEL") return find([&](const BlockDevice& d) { return has(d.labels, value); });
    if (tag == "PARTUUID")
      return find([&](const BlockDevice& d) { return has(d.partuuids, value); });
    return {K::kUnknownForm, ""};
  }
  if (!spec.starts_with("/dev/")) return {K::kNotADisk, ""};
  if (std::optional<std::string> dev = device_of_mount_source(root, devs, spec))
    return {K::kDevice, *dev};
  // /dev/NAME of a device that is not there (sysfs read): absent; a udev
  // link path (/dev/disk/by-*, /dev/VG/LV, /dev/md/NAME) without the udev
  // tree, or without sysfs: unknown. (/dev/mapper/NAME is sysfs's dm/name.)
  const bool udev_link =
      spec.find('/', 5) != std::string::npos && !spec.starts_with("/dev/mapper/");
  if (udev_link && !devs.by_links_read) return {K::kUnknown, ""};
  if (devs.devices.empty() && !devs.notes.empty()) return {K::kUnknown, ""};
  return {K::kAbsent, ""};
}

std::optional<std::string> device_of_mount_source(const FsRoot& root, const BlockDevices& devs,
                                                  const std::string& source) {
  const std::optional<std::string> name = kernel_name_at(root, devs, source);
  for (const BlockDevice& d : devs.devices)
    if (name && d.name == *name) return d.name;
  return std::nullopt;
}

std::string describe_device(const BlockDevice& d) {
  std::vector<std::string> parts;
  if (d.size_bytes) parts.push_back(size_text(*d.size_bytes));
  for (const std::string& u : d.uuids) parts.push_back("UUID " + u);
  for (const std::string& l : d.labels) parts.push_back("LABEL " + l);
  if (d.uuids.empty() && d.labels.empty()) parts.push_back("no filesystem UUID");
  std::string joined;
  for (const std::string& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  return d.name + " (" + joined + ")";
}

}  // namespace gt
