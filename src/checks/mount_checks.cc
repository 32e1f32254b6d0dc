// Mount sanity for / and each --path (model/mounts.h). A mount that
// /etc/fstab or a .mount unit asks for but that is not there leaves its
// mount point a bare directory on the parent filesystem: a resumed job then
// writes its checkpoints onto / and fills it. A filesystem the kernel
// remounted read-only after errors fails every write. A data path on a
// network or overlay filesystem is said, so nobody is surprised by it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "checks/checks.h"
#include "util/byte_units.h"

namespace gt {
namespace {

/// "nvme1n1p1" from "/dev/nvme1n1p1"; other sources as they are.
std::string device_name(const std::string& source) {
  return source.starts_with("/dev/") ? source.substr(5) : source;
}

/// "15.0 TB nvme1n1p1, ext4, 98% free" (the parts that are known).
std::string mount_summary(const MountInfo& m) {
  std::string out;
  if (m.total_bytes) out = format_bytes(*m.total_bytes) + " ";
  out += device_name(m.source.value_or("?")) + ", " + m.fs_type.value_or("?");
  if (m.total_bytes && m.available_bytes && *m.total_bytes > 0)
    out += fmt::format(", {:.0f}% free", 100.0 * *m.available_bytes / *m.total_bytes);
  return out;
}

/// "/etc/fstab:12" or the unit file, from expected_by.
std::string origin_short(const MountInfo& m) {
  const std::string& e = *m.expected_by;
  size_t colon = e.find(": ");
  return colon == std::string::npos ? e : e.substr(0, colon);
}

/// The path as given and, when its links lead elsewhere, where it leads:
/// "/data (resolves to /mnt/nvme0/data)", the path every lookup used.
std::string path_shown(const MountInfo& m) {
  if (!m.resolved_path || *m.resolved_path == m.path) return m.path;
  return m.path + " (resolves to " + *m.resolved_path + ")";
}

std::string unit_of(const MountInfo& m) {
  const std::string o = origin_short(m);
  size_t slash = o.find_last_of('/');
  std::string name = slash == std::string::npos ? o : o.substr(slash + 1);
  return name.ends_with(".mount") ? name : "";
}

/// "; UUID=... names no disk present; disks present and not mounted:
/// nvme1n1 (3.8 TB, ...)": what the block devices say about the source.
std::string device_evidence(const MountInfo& m) {
  std::string out;
  if (m.expected_device) out += "; the configured source is " + *m.expected_device;
  if (m.expected_source_note) out += "; " + *m.expected_source_note;
  if (!m.unmounted_disks.empty())
    out += fmt::format("; disk(s) present and not mounted: {}", fmt::join(m.unmounted_disks, "; "));
  else if (m.expected_source_note && !m.expected_device)
    out += "; no unmounted disk is present";
  return out;
}

/// The new disk that may hold the data, when the configured one is gone.
std::string new_disk_hint(const MountInfo& m) {
  if (m.expected_device || m.unmounted_disks.empty() || !m.expected_source_note) return "";
  return fmt::format(
      " The configured source names no disk present; {} is here and not mounted: if it holds "
      "the data, point the line at its UUID (blkid) before mounting.",
      m.unmounted_disks.front());
}

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

Finding missing(const MountInfo& m) {
  Finding f = path_finding("mount.missing", m.path);
  const std::string& where = *m.expected_mount_point;
  if (m.expected_noauto.value_or(false)) f.severity = Severity::kWarning;
  const std::string holder = m.mount_point.value_or("/");
  f.title = fmt::format("{} is not mounted although {} mounts it: writes to {} fill {} instead",
                        where, origin_short(m), m.path, holder);
  f.evidence = fmt::format(
      "{}; {} is {} on {} ({}){}{}", *m.expected_by, path_shown(m),
      m.plain_directory.value_or(false) ? "a plain directory" : "missing", holder, mount_summary(m),
      m.expected_options && m.expected_options->find("nofail") != std::string::npos
          ? "; nofail: the boot went on without it"
          : "",
      m.expected_noauto.value_or(false) ? "; noauto: it is mounted by hand" : "");
  f.evidence += device_evidence(m);
  f.action = fmt::format(
      "Mount {} before resuming the job (until then its output lands on {} and fills it). "
      "Anything written into the bare directory meanwhile is hidden once mounted: move it "
      "aside first. If the mount fails, check the device (lsblk, the kernel log).{}",
      where, holder, new_disk_hint(m));
  const std::string unit = unit_of(m);
  f.commands = {unit.empty() ? "sudo mount " + where : "sudo systemctl start " + unit,
                "findmnt " + where, "df -h " + m.path};
  if (!m.unmounted_disks.empty() && !m.expected_device)
    f.commands.push_back("lsblk -f /dev/" + first_word(m.unmounted_disks.front()));
  return f;
}

Finding wrong_device(const MountInfo& m) {
  Finding f = path_finding("mount.wrong_device", m.path);
  const std::string& mp = *m.mount_point;
  f.title = fmt::format("{} holds {}, not the {} that {} names: {} is on another disk", mp,
                        m.mounted_device.value_or("?"), m.expected_device.value_or("?"),
                        origin_short(m), m.path);
  f.evidence =
      fmt::format("{}; mounted: {}", *m.expected_by, mount_summary(m)) + device_evidence(m);
  f.action = fmt::format(
      "Unmount {0} and mount the configured device before resuming the job: what the job "
      "reads and writes under {0} now is another disk's.",
      mp);
  f.commands = {"findmnt -o TARGET,SOURCE,FSTYPE,UUID " + mp, "lsblk -f"};
  return f;
}

Finding read_only(const MountInfo& m) {
  Finding f = path_finding("mount.read_only", m.path);
  const std::string& mp = *m.mount_point;
  const bool errors = m.read_only_after_errors.value_or(false);
  f.title =
      fmt::format("{} is mounted read-only{}: writes to {} fail", mp,
                  errors ? " after filesystem errors" : " although configured read-write", m.path);
  f.evidence = fmt::format("{}: {}; options {}{}", mp, mount_summary(m), m.options.value_or("?"),
                           m.expected_by ? "; " + *m.expected_by : "");
  f.action =
      "Find the filesystem errors in the kernel log and repair the filesystem (fsck / "
      "xfs_repair, unmounted), then mount it read-write before resuming the job.";
  f.commands = {"sudo dmesg -T | grep -iE 'EXT4-fs|XFS|remount|I/O error' | tail -20",
                "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS " + mp};
  return f;
}

Finding shared_fs(const MountInfo& m) {
  Finding f = path_finding("mount.network_or_overlay", m.path);
  const bool overlay = *m.problem == MountProblem::kOverlay;
  f.severity = overlay ? Severity::kWarning : Severity::kInfo;
  f.title = overlay ? fmt::format(
                          "{} is on an overlay filesystem (a container's own layer): what is "
                          "written there is lost with the container",
                          m.path)
                    : fmt::format("{} is on a network filesystem ({} {})", m.path,
                                  m.fs_type.value_or("?"), m.source.value_or("?"));
  f.evidence = fmt::format("{} mounted at {}: {}", path_shown(m), m.mount_point.value_or("?"),
                           mount_summary(m));
  f.action = overlay ? "Write the job's output to a volume mounted into the container."
                     : "Expected for shared storage; its free space and speed are the "
                       "storage cluster's, not this node's.";
  f.commands = {"findmnt -T " + m.path};
  return f;
}

}  // namespace

void check_mounts(const NodeSnapshot& s, std::vector<Finding>& out) {
  std::set<std::string> said;  // one finding per mount point and problem
  for (const MountInfo& m : s.mounts) {
    if (m.error || !m.problem) continue;
    const MountProblem p = *m.problem;
    const bool shared = p == MountProblem::kNetwork || p == MountProblem::kOverlay;
    const std::string key = std::string(mount_problem_name(p)) + " " +
                            m.expected_mount_point.value_or(m.mount_point.value_or(""));
    if (!shared && !said.insert(key).second) continue;
    if (p == MountProblem::kNotMounted) out.push_back(missing(m));
    if (p == MountProblem::kReadOnly) out.push_back(read_only(m));
    if (p == MountProblem::kWrongDevice) out.push_back(wrong_device(m));
    if (shared && m.path != "/") out.push_back(shared_fs(m));
  }
}

}  // namespace gt
