// Message formats, from the programs that print them (lines quoted are real
// ones from public reports):
// - block layer, blk_print_req_error() (5.18+; "blk_update_request: " before
//   it): "I/O error, dev nvme0n1, sector 1336320 op 0x0:(READ) flags 0x80700
//   phys_seg 4 prio class 2" (oxidecomputer/propolis#1156); the page cache:
//   "Buffer I/O error on dev sdb1, logical block 244139, async page read";
//   XFS: "metadata I/O error"; ext4: "EXT4-fs error (device vda1): ...".
// - ext4_handle_error(): "EXT4-fs (vda1): Remounting filesystem read-only";
//   XFS xfs_do_force_shutdown(): "... Shutting down filesystem".
// - kernel/hung_task.c: "INFO: task kworker/u16:2:1234 blocked for more than
//   120 seconds." (sysctl_hung_task_timeout_secs, 120 by default).
// - mm/oom_kill.c: "Out of memory: Killed process 1234 (python3) total-vm:..."
//   ("Kill process" before 5.1; "Memory cgroup out of memory: Killed
//   process" for a cgroup's OOM).
// - drivers/nvme/host/pci.c nvme_timeout(): "nvme nvme0: I/O 263 QID 2
//   timeout, reset controller" (propolis#1156, nvme-cli#151); SCSI error
//   handling: "Device offlined - not ready after error recovery",
//   "rejecting I/O to offline device".
// - NVIDIA: "NVRM: Xid (PCI:0000:2b:00): 79, ..." (tests/fixtures/real).
// - kernel/panic.c: "Kernel panic - not syncing: ...".
// - kernel/reboot.c: "reboot: Restarting system", "reboot: Power down",
//   "reboot: System halted" (lkrg-org/lkrg#129 greps the latter).
// - systemd-logind bus_manager_log_shutdown(): MESSAGE_ID
//   98268866d1d54a499c4e98921d93bc40 with SHUTDOWN=power-off|reboot|halt|
//   kexec and "System is powering down." / "System is rebooting."
//   (systemd/systemd#14257, #26519); "Power key pressed" (logind, "Power
//   key pressed short." in 252+); PID 1: "Reached target System Reboot." /
//   "Reached target System Power Off." / "Reached target Shutdown." (a user
//   manager prints the last at logout too: only PID 1's counts);
//   journald: "Journal stopped".
#include "sources/incident/journal.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/json_text.h"
#include "util/text.h"

namespace gt {
namespace {

using J = nlohmann::json;

bool has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

MessageKind kernel_kind(std::string_view m) {
  const std::string l = lower(m);
  if (has(m, "Kernel panic - not syncing")) return MessageKind::kKernelPanic;
  if (has(m, "NVRM: Xid")) return MessageKind::kXid;
  if (has(l, "remounting filesystem read-only") || has(l, "shutting down filesystem"))
    return MessageKind::kReadOnlyRemount;
  if (has(m, "I/O error, dev ") || has(m, "Buffer I/O error on dev") ||
      has(m, "metadata I/O error") || has(m, "EXT4-fs error"))
    return MessageKind::kIoError;
  if (has(m, "blocked for more than ") && has(m, " seconds")) return MessageKind::kHungTask;
  if (has(l, "out of memory: kill")) return MessageKind::kOomKill;
  if (has(m, "reset controller") || has(m, "resetting controller") || has(m, "Device offlined") ||
      has(m, "rejecting I/O to offline device"))
    return MessageKind::kStorageReset;
  if (m.starts_with("reboot: Restarting system")) return MessageKind::kRebootRequested;
  if (m.starts_with("reboot: Power down") || m.starts_with("reboot: System halted"))
    return MessageKind::kPowerOff;
  return MessageKind::kOther;
}

MessageKind systemd_kind(const JournalEntry& e) {
  const std::string_view m = e.message;
  if (e.message_id == "98268866d1d54a499c4e98921d93bc40") {
    if (e.shutdown == "reboot" || e.shutdown == "kexec") return MessageKind::kRebootRequested;
    if (e.shutdown == "power-off" || e.shutdown == "halt") return MessageKind::kPowerOff;
    return MessageKind::kShutdownGeneric;
  }
  if (m.starts_with("System is rebooting")) return MessageKind::kRebootRequested;
  if (m.starts_with("System is powering down") || m.starts_with("System is halting") ||
      m.starts_with("Power key pressed"))
    return MessageKind::kPowerOff;
  if (e.identifier == "systemd" && e.pid == "1" && m.starts_with("Reached target")) {
    if (has(m, "Reboot") || has(m, "reboot.target")) return MessageKind::kRebootRequested;
    if (has(m, "Power Off") || has(m, "Power-Off") || has(m, "poweroff.target") || has(m, "Halt"))
      return MessageKind::kPowerOff;
    if (has(m, "Shutdown") || has(m, "shutdown.target")) return MessageKind::kShutdownGeneric;
  }
  if (e.identifier == "systemd-journald" && m.starts_with("Journal stopped"))
    return MessageKind::kShutdownGeneric;
  if (e.identifier == "systemd-shutdown") return MessageKind::kShutdownGeneric;
  return MessageKind::kOther;
}

std::string field(const J& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {  // a binary field: journalctl prints its bytes
    std::string bytes;
    for (const J& b : *it)
      if (b.is_number_unsigned()) bytes += static_cast<char>(b.get<unsigned>() & 0xff);
    return bytes;
  }
  // journalctl prints strings, numbers and byte arrays; an object is not a
  // field's value (and printing one nested 50,000 deep would recurse).
  if (it->is_object()) return "";
  return json_text(*it);
}

std::optional<int64_t> micro_to_s(const J& v) {
  try {
    if (v.is_number_unsigned()) return static_cast<int64_t>(v.get<uint64_t>() / 1000000);
    if (v.is_number_integer()) return v.get<int64_t>() / 1000000;
    if (v.is_string()) return static_cast<int64_t>(std::stoull(v.get<std::string>()) / 1000000);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::optional<int> to_index(const J& v) {
  try {
    if (v.is_number_integer()) return v.get<int>();
    if (v.is_string()) return std::stoi(v.get<std::string>());
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::vector<BootListEntry> parse_boot_list_json(const J& arr) {
  std::vector<BootListEntry> out;
  for (const J& b : arr) {
    if (!b.is_object()) continue;
    std::optional<int> idx = to_index(b.contains("index") ? b["index"] : b.value("#", J()));
    if (!idx) continue;
    BootListEntry e;
    e.index = *idx;
    e.boot_id = field(b, "boot_id");
    if (b.contains("first_entry")) e.first_unix_s = micro_to_s(b["first_entry"]);
    if (b.contains("last_entry")) e.last_unix_s = micro_to_s(b["last_entry"]);
    out.push_back(std::move(e));
  }
  return out;
}

/// "Fri 2022-03-11 17:38:41 UTC" from tokens at `i`; only UTC is read (a
/// local zone name cannot be resolved safely).
std::optional<int64_t> utc_time(const std::vector<std::string>& t, size_t i) {
  if (i + 3 >= t.size() || t[i + 3] != "UTC") return std::nullopt;
  std::tm tm{};
  std::istringstream in(t[i + 1] + " " + t[i + 2]);
  in >> std::get_time(&tm, "%Y-%m-%d %H:%M:%S");
  if (in.fail()) return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

std::vector<BootListEntry> parse_boot_list_plain(std::string_view text) {
  std::vector<BootListEntry> out;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    for (std::string dash : {"\xe2\x80\x94", "-"})  // "—" joins the two times
      if (size_t p = line.find(" UTC" + dash); p != std::string::npos)
        line.replace(p + 4, dash.size(), " ");
    std::istringstream words(line);
    std::vector<std::string> t;
    for (std::string w; words >> w;) t.push_back(w);
    if (t.size() < 2 || t[1].size() != 32) continue;
    BootListEntry e;
    try {
      e.index = std::stoi(t[0]);
    } catch (const std::exception&) {
      continue;
    }
    e.boot_id = t[1];
    e.first_unix_s = utc_time(t, 2);
    e.last_unix_s = utc_time(t, 6);
    out.push_back(std::move(e));
  }
  return out;
}

void tally(MessageTally& t, const JournalEntry& e) {
  if (++t.count == 1) {
    t.first_unix_s = e.time_unix_s;
    t.example = e.message.substr(0, 200);
  }
  if (e.time_unix_s) t.last_unix_s = e.time_unix_s;
}

MessageTally* tally_for(PreviousBoot& b, MessageKind k) {
  switch (k) {
    case MessageKind::kIoError:
      return &b.io_errors;
    case MessageKind::kReadOnlyRemount:
      return &b.read_only_remounts;
    case MessageKind::kHungTask:
      return &b.hung_tasks;
    case MessageKind::kOomKill:
      return &b.oom_kills;
    case MessageKind::kStorageReset:
      return &b.storage_resets;
    case MessageKind::kXid:
      return &b.xids;
    default:
      return nullptr;
  }
}

/// Why a command gave nothing, or nullopt when it ran.
std::optional<std::string> failure(const CommandResult& r, std::chrono::milliseconds timeout) {
  if (r.spawn_error) return *r.spawn_error;
  if (r.timed_out) return "journalctl timed out after " + std::to_string(timeout.count()) + " ms";
  if (r.exit_code != 0) {
    std::string line = first_line(r.err);
    return line.empty() ? "journalctl exit code " + std::to_string(r.exit_code) : line;
  }
  return std::nullopt;
}

}  // namespace

MessageKind message_kind(const JournalEntry& e) {
  if (e.identifier == "kernel") {
    MessageKind k = kernel_kind(e.message);
    if (k != MessageKind::kOther) return k;
  }
  return systemd_kind(e);
}

std::vector<BootListEntry> parse_boot_list(std::string_view text) {
  J arr = J::parse(text, nullptr, false);
  if (!arr.is_discarded() && arr.is_array()) return parse_boot_list_json(arr);
  return parse_boot_list_plain(text);
}

std::vector<JournalEntry> parse_journal_json(std::string_view text, uint64_t& garbage) {
  std::vector<JournalEntry> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    J j = J::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ++garbage;
      continue;
    }
    JournalEntry e;
    if (j.contains("__REALTIME_TIMESTAMP")) e.time_unix_s = micro_to_s(j["__REALTIME_TIMESTAMP"]);
    e.identifier = field(j, "SYSLOG_IDENTIFIER");
    if (e.identifier.empty() && field(j, "_TRANSPORT") == "kernel") e.identifier = "kernel";
    e.message = field(j, "MESSAGE");
    e.message_id = field(j, "MESSAGE_ID");
    e.shutdown = field(j, "SHUTDOWN");
    e.pid = field(j, "_PID");
    out.push_back(std::move(e));
  }
  return out;
}

void summarise_previous_boot(const std::vector<JournalEntry>& entries, PreviousBoot& boot) {
  std::optional<int64_t> last = boot.last_entry_unix_s;
  for (const JournalEntry& e : entries)
    if (e.time_unix_s && (!last || *e.time_unix_s > *last)) last = e.time_unix_s;
  if (!boot.last_entry_unix_s) boot.last_entry_unix_s = last;
  std::optional<MessageKind> ending;
  const JournalEntry* evidence = nullptr;
  for (const JournalEntry& e : entries) {
    const MessageKind k = message_kind(e);
    const bool late = !last || !e.time_unix_s || *e.time_unix_s >= *last - kLastMinutesS;
    if (MessageTally* t = tally_for(boot, k); t && late) tally(*t, e);
    // The strongest ending said wins: panic, then reboot, power-off, generic.
    if (k == MessageKind::kKernelPanic || k == MessageKind::kRebootRequested ||
        k == MessageKind::kPowerOff || k == MessageKind::kShutdownGeneric) {
      if (late && (!ending || k < *ending)) {
        ending = k;
        evidence = &e;
      }
    }
  }
  if (entries.empty()) return;
  boot.ending = !ending                                    ? BootEnding::kAbrupt
                : *ending == MessageKind::kKernelPanic     ? BootEnding::kKernelPanic
                : *ending == MessageKind::kRebootRequested ? BootEnding::kReboot
                                                           : BootEnding::kCleanShutdown;
  if (evidence) boot.ending_evidence = evidence->message.substr(0, 200);
}

std::vector<std::string> list_boots_argv() {
  return {"journalctl", "--list-boots", "-o", "json", "--no-pager", "-q"};
}

std::vector<std::string> previous_boot_argv(uint64_t max_entries) {
  return {"journalctl",
          "-b",
          "-1",
          "-o",
          "json",
          "-n",
          std::to_string(max_entries),
          "--no-pager",
          "-q",
          "--output-fields=MESSAGE,SYSLOG_IDENTIFIER,MESSAGE_ID,SHUTDOWN,_PID,_TRANSPORT",
          "_TRANSPORT=kernel",
          "+",
          "SYSLOG_IDENTIFIER=systemd",
          "+",
          "SYSLOG_IDENTIFIER=systemd-logind",
          "+",
          "SYSLOG_IDENTIFIER=systemd-journald",
          "+",
          "SYSLOG_IDENTIFIER=systemd-shutdown"};
}

void read_previous_boot(const JournalOptions& o, Incident& out) {
  CommandResult list = o.runner->run(list_boots_argv(), o.timeout);
  if (list.absent) return;
  if (std::optional<std::string> why = failure(list, o.timeout)) {
    out.unread.push_back("journal (boot list): " + *why);
    return;
  }
  std::vector<BootListEntry> boots = parse_boot_list(list.out);
  auto prev = std::find_if(boots.begin(), boots.end(),
                           [](const BootListEntry& b) { return b.index == -1; });
  if (prev == boots.end()) {
    out.unread.push_back(
        boots.empty()
            ? "journal (boot list): output not readable"
            : "journal: no previous boot recorded (a volatile journal, or the first boot)");
    return;
  }
  PreviousBoot boot;
  boot.boot_id = prev->boot_id;
  boot.first_entry_unix_s = prev->first_unix_s;
  boot.last_entry_unix_s = prev->last_unix_s;
  CommandResult r = o.runner->run(previous_boot_argv(o.max_entries), o.timeout);
  if (r.absent) {
  } else if (std::optional<std::string> why = failure(r, o.timeout)) {
    out.unread.push_back("journal (previous boot's entries): " + *why);
  } else {
    std::vector<JournalEntry> entries = parse_journal_json(r.out, boot.garbage_lines);
    boot.entries_read = entries.size();
    boot.capped = entries.size() >= o.max_entries;
    if (entries.empty() && boot.garbage_lines > 0)
      out.unread.push_back("journal (previous boot's entries): not journal JSON (" +
                           std::to_string(boot.garbage_lines) + " lines unreadable)");
    summarise_previous_boot(entries, boot);
  }
  out.previous_boot = std::move(boot);
}

}  // namespace gt
