// What happened: the previous boot's end (abrupt, a kernel panic), the
// storage errors in its last minutes, and whether the clock can be trusted
// (every time in the report depends on it). All are history or hygiene:
// warnings, never critical (the node's present state is judged elsewhere).
#include <fmt/format.h>

#include <cstdlib>

#include "checks/checks.h"
#include "util/plural.h"
#include "util/time_format.h"

namespace gt {
namespace {

std::string at(const std::optional<int64_t>& t) {
  return t ? " at " + format_utc(*t, "%Y-%m-%d %H:%M:%S UTC") : "";
}

/// "jbd2/vdb1-8" from "INFO: task jbd2/vdb1-8:611 blocked for more than 120
/// seconds." (kernel/hung_task.c: "task %s:%d"); nullopt when not that shape.
std::optional<std::string> hung_task_name(const std::string& message) {
  const std::string lead = "task ";
  size_t from = message.find(lead);
  size_t to = message.find(" blocked for more than");
  if (from == std::string::npos || to == std::string::npos || to <= from + lead.size())
    return std::nullopt;
  std::string task = message.substr(from + lead.size(), to - from - lead.size());
  size_t colon = task.rfind(':');
  return colon == std::string::npos ? task : task.substr(0, colon);
}

/// Hung tasks and no storage error before an abrupt end or a panic: I/O
/// that stopped answering rather than failing, as a full Ceph pool or a
/// thin pool out of space pauses writes (docs/physics.md R10). The tasks
/// may wait on a lock instead, so the title says what was seen and the
/// usual cause, not a verdict.
void hung_tasks_before_end(const PreviousBoot& b, const std::string& summary,
                           std::vector<Finding>& out) {
  if (b.hung_tasks.count == 0 ||
      (b.ending != BootEnding::kAbrupt && b.ending != BootEnding::kKernelPanic))
    return;
  Finding f = node_finding("incident.hung_tasks_before_crash");
  f.title = fmt::format(
      "{} blocked for more than 2 minutes in the previous boot's last minutes, with no I/O "
      "error, before it ended: storage that stopped answering is the usual cause",
      count_of(b.hung_tasks.count, "task", "tasks"));
  std::optional<std::string> task = hung_task_name(b.hung_tasks.example.value_or(""));
  f.evidence = fmt::format("{}; first: {}", summary, b.hung_tasks.example.value_or("?"));
  if (task && task->starts_with("jbd2/"))
    f.evidence += fmt::format(" ({} is the journal of filesystem {}: it waited on its disk)", *task,
                              task->substr(5, task->rfind('-') - 5));
  f.action =
      "Check the storage under the node (and under the VM) before resuming: a backing store "
      "that filled up (a Ceph pool, a thin pool) pauses writes instead of failing them; its "
      "free space and health, then whether the job's last writes reached the disk.";
  f.commands = {
      "journalctl -b -1 -k --no-pager | grep -E 'blocked for more than|hung_task' | tail -50",
      "df -h"};
  out.push_back(f);
}

void previous_boot_end(const PreviousBoot& b, std::vector<Finding>& out) {
  const std::string summary = last_minutes_summary(b);
  if (b.ending == BootEnding::kAbrupt) {
    Finding f = node_finding("incident.previous_boot_abrupt");
    f.title = "The previous boot ended abruptly" + at(b.last_entry_unix_s) +
              " (no shutdown record: power loss, a killed VM or a hard hang)";
    f.evidence = summary.empty()
                     ? "its last minutes show no storage, hung-task, OOM or Xid message"
                     : fmt::format("its last {} min show {}", kLastMinutesS / 60, summary);
    f.action =
        "Find what ended it before resuming work: the hypervisor's or BMC's event log (a VM "
        "killed by its host, power), and the previous boot's last messages.";
    f.commands = {"journalctl -b -1 -n 200 --no-pager", "journalctl --list-boots --no-pager"};
    out.push_back(f);
  }
  if (b.ending == BootEnding::kKernelPanic) {
    Finding f = node_finding("incident.kernel_panic");
    f.title = "The previous boot ended in a kernel panic" + at(b.last_entry_unix_s);
    f.evidence = b.ending_evidence.value_or("a crash record holds the panic");
    f.action = "Read the whole panic (pstore or kdump) and the messages before it.";
    f.commands = {"ls -l /sys/fs/pstore /var/lib/systemd/pstore /var/crash",
                  "journalctl -b -1 -k -n 200 --no-pager"};
    out.push_back(f);
  }
  const uint64_t storage = b.io_errors.count + b.read_only_remounts.count + b.storage_resets.count;
  if (storage > 0 && (b.ending == BootEnding::kAbrupt || b.ending == BootEnding::kKernelPanic)) {
    Finding f = node_finding("incident.storage_errors_before_crash");
    f.title = "Storage failed in the previous boot's last minutes: " + summary;
    std::optional<std::string> ex = b.io_errors.example            ? b.io_errors.example
                                    : b.read_only_remounts.example ? b.read_only_remounts.example
                                                                   : b.storage_resets.example;
    f.evidence = "first: " + ex.value_or("?");
    f.action =
        "Check the storage under the node (and under the VM) before resuming: free space on "
        "the backing store, the disk's health, and which filesystems went read-only.";
    f.commands = {"journalctl -b -1 -k --no-pager | grep -E 'I/O error|read-only|reset' | tail -50",
                  "df -h", "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS"};
    out.push_back(f);
  }
  if (storage == 0) hung_tasks_before_end(b, summary, out);
}

/// A warning needs evidence the clock is wrong or cannot be trusted for the
/// report's times: NTP configured (timedatectl NTP=yes) but not
/// synchronised, here; the RTC disagreeing and files dated in the future,
/// below. The kernel's STA_UNSYNC flag and maximum error are not evidence on
/// their own: with nothing disciplining the clock (a VM the hypervisor keeps
/// in time, a container, chrony without rtcsync) the flag stays set and the
/// maximum error climbs to its 16 s cap on a clock that is right. Alone they
/// are a note (info), which never breaks the one-line no-GPU output.
bool ntp_failing(const ClockState& c) {
  return c.ntp_enabled == true && c.ntp_synchronised == false;
}

void clock_findings(const ClockState& c, std::vector<Finding>& out) {
  const bool failing = ntp_failing(c);
  const bool flag_only = c.kernel_synchronised == false || c.ntp_synchronised == false;
  if (failing || flag_only) {
    Finding f = node_finding("clock.unsynchronised");
    f.title =
        "NTP is configured but the clock is not synchronised: every time in this report "
        "may be off";
    if (!failing) {
      f.severity = Severity::kInfo;
      f.title =
          "The clock is not synchronised by NTP here (the kernel's flag is unset; VMs timed by "
          "the hypervisor, containers and chrony without rtcsync leave it so): no evidence it "
          "is wrong";
    }
    f.evidence = fmt::format(
        "kernel (adjtimex): {}, max error {}; timedatectl NTPSynchronized: {}; NTP: {}",
        c.kernel_synchronised ? (*c.kernel_synchronised ? "synchronised" : "unsynchronised")
                              : "unknown",
        c.kernel_max_error_us ? fmt::format("{:.1f} s", *c.kernel_max_error_us / 1e6) : "unknown",
        c.ntp_synchronised ? (*c.ntp_synchronised ? "yes" : "no") : "unknown",
        c.ntp_enabled ? (*c.ntp_enabled ? "enabled" : "disabled") : "unknown");
    f.action = failing ? "Find why the time service cannot synchronise (its sources, the network "
                         "to them), then check the clock."
                       : "Nothing is needed for this report; enable time synchronisation "
                         "(chrony / systemd-timesyncd) if the node should keep time itself.";
    f.commands = {"timedatectl status", "chronyc tracking"};
    out.push_back(f);
  }
  if (c.rtc_offset_s && std::llabs(*c.rtc_offset_s) > kRtcDriftBoundS) {
    Finding f = node_finding("clock.rtc_drift");
    f.title = fmt::format("System time differs from the hardware clock (RTC) by {} s (bound {} s)",
                          *c.rtc_offset_s, kRtcDriftBoundS);
    f.evidence = "system" + at(c.system_unix_s) + ", RTC" + at(c.rtc_unix_s);
    f.action =
        "Find which is right (an NTP source), then set the other: times read from the last boot "
        "(journal, files) may be off by as much.";
    f.commands = {"timedatectl status", "sudo hwclock --show"};
    out.push_back(f);
  }
  if (c.future_files > 0) {
    Finding f = node_finding("clock.future_files");
    f.title =
        fmt::format("{} in the inspected directories {} dated in the future",
                    count_of(c.future_files, "file", "files"), plural(c.future_files, "is", "are"));
    f.evidence = "e.g. " + c.future_example.value_or("?");
    f.action = "The clock was ahead when they were written, or is behind now: check it first.";
    f.commands = {"timedatectl status"};
    out.push_back(f);
  }
}

}  // namespace

void check_incident(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.incident) return;
  if (s.incident->previous_boot) previous_boot_end(*s.incident->previous_boot, out);
  clock_findings(s.incident->clock, out);
}

}  // namespace gt
