// Mount sanity for / and each --path (model/mounts.h). A mount that
// /etc/fstab or a .mount unit asks for but that is not there leaves its
// mount point a bare directory on the parent filesystem: a resumed job then
// writes its checkpoints onto / and fills it. A filesystem the kernel
// remounted read-only after errors fails every write. A data path on a
// network or overlay filesystem is said, so nobody is surprised by it.
// Every mount the configuration asks for at boot is judged too, asked for
// or not: critical when a --path, --data or a GPU process lives under it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "checks/checks.h"
#include "util/byte_units.h"
#include "util/shell_word.h"

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

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

/// Whether `path` is `dir` or below it ("/data/x" under "/data", not
/// "/database").
bool path_is_under(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.starts_with("/");
  return path.starts_with(dir) && (path.size() == dir.size() || path[dir.size()] == '/');
}

/// The first absolute path in a command line that lies under `dir`: a word
/// ("/data/out") or an option's value ("--output-path=/data/out").
std::optional<std::string> path_named_under(const std::string& cmdline, const std::string& dir) {
  size_t at = 0;
  while (at < cmdline.size()) {
    size_t end = cmdline.find(' ', at);
    std::string_view word = std::string_view(cmdline).substr(at, end - at);
    if (size_t eq = word.find('='); eq != std::string_view::npos && word.starts_with("-"))
      word.remove_prefix(eq + 1);
    if (word.starts_with("/") && path_is_under(word, dir)) return std::string(word);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

/// What the snapshot knows of a GPU process living under `dir`: a path
/// under it in the command line of a process NVML lists on a GPU, or of
/// the launcher of the server those processes belong to (the working
/// directory and open files are not in the snapshot). "PID 3141, the
/// SGLang server's launcher (...), names /data/x in its command line", or "".
std::string gpu_process_under(const NodeSnapshot& s, const std::string& dir) {
  for (const GpuState& g : s.gpus)
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{}))
      if (auto path = path_named_under(p.cmdline.value_or(""), dir))
        return fmt::format("GPU process PID {} names {} in its command line", p.pid, *path);
  for (const Server& sv : s.servers.value_or(std::vector<Server>{}))
    if (auto path = path_named_under(sv.root_cmdline.value_or(""), dir))
      return fmt::format(
          "PID {}, the {} server's launcher (its processes hold GPU memory), names {} in its "
          "command line",
          sv.root_pid ? std::to_string(*sv.root_pid) : "?", sv.kind, *path);
  return "";
}

/// A mount inspected only because the configuration names it is critical
/// when a GPU process lives under it, else a warning; one asked for (/,
/// --path, --data) keeps its finding's severity. The GPU process, when
/// one, is added to the evidence.
void weigh_configured(const NodeSnapshot& s, const MountInfo& m, const std::string& dir,
                      Finding& f) {
  if (!m.configured_only) return;
  const std::string user = gpu_process_under(s, dir);
  if (user.empty()) {
    f.severity = std::min(f.severity, Severity::kWarning);
    f.evidence += "; no --path, --data or GPU process command line names a path under " + dir;
    return;
  }
  f.evidence += "; " + user;
}

/// The steps that get a missing mount back, in the order they are safe:
/// with the configured disk present, mount and verify; with a configured
/// source that names no disk present, identify the disk that may hold the
/// data, look at it read-only, point the configuration at it, then mount
/// and verify.
std::vector<std::string> mount_steps(const MountInfo& m) {
  // Every outside string (a mount point or unit from fstab, a disk's name)
  // as one shell word: a step is pasted as it is printed.
  const std::string where = shell_word(*m.expected_mount_point);
  const std::string unit = unit_of(m).empty() ? "" : shell_word(unit_of(m));
  const std::string mount_cmd =
      unit.empty() ? "sudo mount " + where : "sudo systemctl start " + unit;
  const std::vector<std::string> verify = {"findmnt " + where, "df -h " + shell_word(m.path)};
  std::vector<std::string> out;
  if (!m.expected_device && m.expected_source_note) {
    out.push_back("lsblk -f");
    if (!m.unmounted_disks.empty()) {
      const std::string dev = shell_word("/dev/" + first_word(m.unmounted_disks.front()));
      const std::string look = "/mnt/gpu-triage-check";
      out.insert(out.end(), {"sudo blkid " + dev, "sudo mkdir -p " + look,
                             "sudo mount -o ro " + dev + " " + look, "sudo ls -la " + look,
                             "sudo umount " + look});
    } else {
      out.push_back("sudo blkid");
    }
    if (unit.empty())
      out.insert(out.end(),
                 {"sudo cp -a /etc/fstab /etc/fstab.bak", "sudo ${EDITOR:-vi} /etc/fstab"});
    else
      out.push_back("sudo systemctl edit --full " + unit);
    out.push_back("sudo systemctl daemon-reload");
  }
  out.push_back(mount_cmd);
  out.insert(out.end(), verify.begin(), verify.end());
  return out;
}

/// What the steps do, said before them.
std::string mount_action(const MountInfo& m, const std::string& holder) {
  const std::string& where = *m.expected_mount_point;
  const std::string line = origin_short(m);
  const std::string after = fmt::format(
      " (until then its output lands on {} and fills it). Anything written into the bare "
      "directory meanwhile is hidden once mounted: move it aside first.",
      holder);
  if (m.expected_device || !m.expected_source_note)
    return fmt::format(
        "Mount {} and check it before resuming the job{} If the mount fails, check "
        "the device (lsblk, the kernel log).",
        where, after);
  if (m.unmounted_disks.empty())
    return fmt::format(
        "The configured source names no disk present, and no unmounted disk is here: find the "
        "disk that holds the data (lsblk -f, blkid; in a VM, the volume attached to it), point "
        "{} at its UUID, then mount {} and check it before resuming the job{}",
        line, where, after);
  return fmt::format(
      "The configured source names no disk present; {} is here and not mounted. Identify it "
      "(lsblk -f, blkid), look at its contents read-only (mounted read-only on a temporary "
      "point, then unmounted), and if it holds the data point {} at its UUID (a copy of the file "
      "kept; the other fields "
      "as they are), reload systemd's view of it, then mount {} and check it before resuming "
      "the job{}",
      m.unmounted_disks.front(), line, where, after);
}

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
      // A unit nothing wants says so in expected_by.
      m.expected_noauto.value_or(false) && m.expected_options &&
              m.expected_options->find("noauto") != std::string::npos
          ? "; noauto: it is mounted by hand"
          : "");
  f.evidence += device_evidence(m);
  f.action = mount_action(m, holder);
  f.commands = mount_steps(m);
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
  f.commands = {"findmnt -o TARGET,SOURCE,FSTYPE,UUID " + shell_word(mp), "lsblk -f"};
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
                "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS " + shell_word(mp)};
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
  f.commands = {"findmnt -T " + shell_word(m.path)};
  return f;
}

/// What of the mount table or configuration was not read: the mount
/// checks needing it did not run, so the mounts are never clean by default.
void unread(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (s.mounts_unread.empty()) return;
  Finding f = node_finding("mount.unread");
  std::vector<std::string> what;
  for (const std::string& u : s.mounts_unread) {
    what.push_back(u.substr(0, u.find(": ")));
    f.commands.push_back("ls -ld " + shell_word(what.back()));
  }
  f.title =
      fmt::format("The mount checks could not run: {} could not be read", fmt::join(what, ", "));
  f.evidence = fmt::format("{}", fmt::join(s.mounts_unread, "; "));
  f.action =
      "Run gpu-triage as root (or make the files readable) and triage again: until then a "
      "missing, read-only or wrong-device mount is not seen.";
  out.push_back(std::move(f));
}

}  // namespace

void check_mounts(const NodeSnapshot& s, std::vector<Finding>& out) {
  unread(s, out);
  std::set<std::string> said;  // one finding per mount point and problem
  for (const MountInfo& m : s.mounts) {
    if (m.error || !m.problem) continue;
    const MountProblem p = *m.problem;
    const bool shared = p == MountProblem::kNetwork || p == MountProblem::kOverlay;
    const std::string key = std::string(mount_problem_name(p)) + " " +
                            m.expected_mount_point.value_or(m.mount_point.value_or(""));
    if (!shared && !said.insert(key).second) continue;
    std::optional<Finding> f;
    if (p == MountProblem::kNotMounted) f = missing(m);
    if (p == MountProblem::kReadOnly) f = read_only(m);
    if (p == MountProblem::kWrongDevice) f = wrong_device(m);
    if (shared && m.path != "/" && !m.configured_only) f = shared_fs(m);
    if (!f) continue;
    weigh_configured(s, m, m.expected_mount_point.value_or(m.mount_point.value_or(m.path)), *f);
    out.push_back(std::move(*f));
  }
}

}  // namespace gt
