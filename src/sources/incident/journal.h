// The previous boot, from the systemd journal through the CommandRunner:
//   journalctl --list-boots -o json --no-pager -q   (its boot id, first and
//     last entry; systemd before 251 prints its plain table whatever -o
//     says, read too)
//   journalctl -b -1 -o json -n N ... (the last N kernel and systemd
//     entries only: --output-fields and field matches bound what is read)
// Each message is classified from the kernel's and systemd's own formats
// (message_kind below; the sources are cited in journal.cc), the ending
// decided, and the last kLastMinutesS of the boot tallied.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "model/incident.h"
#include "sources/kernel_log/command_runner.h"

namespace gt {

/// What one journal message is, for the incident.
enum class MessageKind {
  kOther,
  kIoError,
  kReadOnlyRemount,
  kHungTask,
  kOomKill,
  kStorageReset,
  kXid,
  kKernelPanic,
  kRebootRequested,  ///< a reboot was asked for
  kPowerOff,         ///< a power-off / halt was asked for
  kShutdownGeneric,  ///< a shutdown in progress, kind unsaid
};

/// A journal entry as far as the incident needs it.
struct JournalEntry {
  std::optional<int64_t> time_unix_s;  ///< __REALTIME_TIMESTAMP / 1e6
  std::string identifier;              ///< SYSLOG_IDENTIFIER ("kernel", "systemd"...)
  std::string message;
  std::string message_id;
  std::string shutdown;  ///< SHUTDOWN= of the logind shutdown message
  std::string pid;       ///< _PID
};

MessageKind message_kind(const JournalEntry& e);

/// One boot of `journalctl --list-boots`.
struct BootListEntry {
  int index = 0;
  std::string boot_id;
  std::optional<int64_t> first_unix_s;
  std::optional<int64_t> last_unix_s;
};

/// Parses --list-boots output: the JSON array ("#" or "index", "boot_id",
/// "first_entry"/"last_entry" in microseconds) or the plain table (index
/// and boot id; times only when printed in UTC). Empty when unreadable.
std::vector<BootListEntry> parse_boot_list(std::string_view text);

/// Parses `journalctl -o json` lines into entries; counts lines that are
/// not a JSON object in `garbage`.
std::vector<JournalEntry> parse_journal_json(std::string_view text, uint64_t& garbage);

/// Decides how the boot ended and tallies its last minutes into `boot`.
void summarise_previous_boot(const std::vector<JournalEntry>& entries, PreviousBoot& boot);

struct JournalOptions {
  const CommandRunner* runner = nullptr;    ///< required
  std::chrono::milliseconds timeout{3000};  ///< per command
  uint64_t max_entries = 20000;             ///< journalctl -n
};

/// The argv of the previous boot's read (tests and fixture trees name it).
std::vector<std::string> previous_boot_argv(uint64_t max_entries);
std::vector<std::string> list_boots_argv();

/// Reads the previous boot into `out.previous_boot`; what could not be read
/// is one line in `out.unread` (previous_boot then stays null, or holds
/// what the boot list alone said).
void read_previous_boot(const JournalOptions& o, Incident& out);

}  // namespace gt
