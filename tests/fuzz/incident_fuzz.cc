// What happened and when, from files and commands under a fixture tree:
// crash records (pstore, systemd-pstore, kdump), /proc/stat (btime),
// /proc/uptime, the boot id, the RTC (since_epoch, date and time), the
// fixture clock and the answers of timedatectl and journalctl. Each input
// is every one of them; collect_incident reads the tree through the
// fixture seams (as for a --root tree), then the report is judged and
// rendered.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "report_pipeline.h"
#include "sources/incident/boot.h"
#include "sources/incident/clock.h"
#include "sources/incident/incident_collector.h"
#include "sources/incident/journal.h"
#include "sources/incident/pstore.h"
#include "tree_target.h"

namespace incident_fuzz {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

const gt::fuzz::ScratchTree& tree() {
  static const gt::fuzz::ScratchTree t = [] {
    gt::fuzz::ScratchTree s;
    const std::string dir = "/.gt-fixture/commands/";
    s.write(dir + "list-boots.cmd", joined(gt::list_boots_argv()));
    s.write(dir + "previous-boot.cmd", joined(gt::previous_boot_argv(20000)));
    s.write(dir + "timedatectl.cmd", "timedatectl show -p NTP -p NTPSynchronized");
    return s;
  }();
  return t;
}

GT_FUZZ_TARGET(incident) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const gt::fuzz::ScratchTree& t = tree();
  for (const char* path :
       {"/sys/fs/pstore/dmesg-ramoops-0", "/var/lib/systemd/pstore/1766966100/dmesg-efi-1",
        "/var/crash/202512290035/vmcore-dmesg.txt", "/proc/stat", "/proc/uptime",
        "/proc/sys/kernel/random/boot_id", "/sys/class/rtc/rtc0/since_epoch",
        "/sys/class/rtc/rtc0/date", "/sys/class/rtc/rtc0/time", "/.gt-fixture/clock",
        "/.gt-fixture/commands/list-boots.out", "/.gt-fixture/commands/previous-boot.out",
        "/.gt-fixture/commands/timedatectl.out"})
    t.write(path, text);
  (void)gt::panic_lines(text);
  gt::ClockState clock;
  gt::parse_timedatectl(text, clock);
  const gt::FsRoot root = t.root();
  gt::HostSeams seams = gt::host_seams_for(root);
  gt::IncidentOptions o;
  o.runner = seams.runner.get();
  o.clock = seams.clock.get();
  o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  gt::Report report;
  report.snapshot.incident = gt::collect_incident(root, o, std::nullopt);
  gt::judge_and_render(report);
  return 0;
}

}  // namespace incident_fuzz
