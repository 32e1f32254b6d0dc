// Mounts: /proc/self/mountinfo, /etc/fstab and a systemd .mount unit. Each
// input is all three; the parsers run on it directly, then read_mounts
// reads the tree for / and two --path folders, and the report is judged and
// rendered.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/fs/mount_table.h"
#include "tree_target.h"

GT_FUZZ_TARGET(mounts) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const gt::fuzz::ScratchTree t;
  t.write("/proc/self/mountinfo", text);
  t.write("/etc/fstab", text);
  t.write("/etc/systemd/system/data.mount", text);
  t.write("/etc/systemd/system/mnt-models.mount", text);
  (void)gt::parse_mountinfo(text);
  (void)gt::parse_fstab(text);
  (void)gt::parse_mount_unit(text, "/etc/systemd/system/data.mount");
  (void)gt::unescape_octal(text);
  gt::Report report;
  for (const char* path : {"/", "/data", "/mnt/models/llama"}) {
    gt::DiskUsage d;
    d.path = path;
    report.snapshot.disks.push_back(d);
  }
  report.snapshot.mounts = gt::read_mounts(t.root(), report.snapshot.disks);
  gt::judge_and_render(report);
  return 0;
}
