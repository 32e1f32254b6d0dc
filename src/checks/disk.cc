// Disk space where the job writes: the filesystems holding --path DIR (and
// /). The crash in our story began with a storage cluster out of space, and
// a resumed job that fills the disk again loses more. Warning below 10% free,
// critical below 3%, for bytes and inodes alike (a per-sample file layout
// can run out of inodes long before bytes). A --path on the filesystem of an
// earlier path is judged with it, once: the finding names both.
#include <fmt/format.h>

#include "checks/checks.h"
#include "util/byte_units.h"
#include "util/shell_word.h"

namespace gt {
namespace {

constexpr double kWarnShare = 0.10;
constexpr double kCritShare = 0.03;

void grade(const DiskUsage& d, const std::string& also, const char* id, uint64_t avail,
           uint64_t total, const char* unit, std::vector<Finding>& out) {
  if (total == 0) return;
  const double share = static_cast<double>(avail) / total;
  if (share >= kWarnShare) return;
  Finding f = node_finding(id);
  f.severity = share < kCritShare ? Severity::kCritical : Severity::kWarning;
  f.subject.kind = "path";
  f.subject.path = d.path;
  bool bytes = std::string(unit) == "bytes";
  f.title = fmt::format("{}{}: {:.1f}% {} free on the filesystem holding it", d.path,
                        also.empty() ? "" : " (and " + also + ")", share * 100,
                        bytes ? "space" : "inodes");
  f.evidence = bytes ? format_bytes(avail) + " free of " + format_bytes(total)
                     : fmt::format("{} inodes free of {}", avail, total);
  f.action =
      "Free space (or move the output) before resuming the job; a job that fills the "
      "disk again writes truncated files.";
  const std::string path = shell_word(d.path);
  f.commands = {"df -h " + path, "df -i " + path,
                "sudo du -xh --max-depth=2 " + path + " | sort -h | tail -20"};
  out.push_back(f);
}

/// The later paths on the filesystem of `d`: "/data, /scratch".
std::string same_filesystem(const NodeSnapshot& s, const DiskUsage& d) {
  std::string also;
  for (const DiskUsage& o : s.disks)
    if (o.same_filesystem_as == d.path) also += (also.empty() ? "" : ", ") + o.path;
  return also;
}

}  // namespace

void check_disks(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const DiskUsage& d : s.disks) {
    if (d.error) {
      Finding f = node_finding("disk.unreadable");
      f.subject.kind = "path";
      f.subject.path = d.path;
      f.title = "Could not check free space: " + *d.error;
      f.action = "Check that the path exists and is mounted.";
      f.commands = {"findmnt -T " + shell_word(d.path)};
      out.push_back(f);
      continue;
    }
    if (d.same_filesystem_as) continue;  // judged with that path
    const std::string also = same_filesystem(s, d);
    if (d.available_bytes && d.total_bytes)
      grade(d, also, "disk.low_space", *d.available_bytes, *d.total_bytes, "bytes", out);
    if (d.inodes_available && d.inodes_total)
      grade(d, also, "disk.low_inodes", *d.inodes_available, *d.inodes_total, "inodes", out);
  }
}

}  // namespace gt
