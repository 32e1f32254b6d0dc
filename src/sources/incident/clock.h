// Clock sanity: every other time in the report depends on this machine's
// clock. System time against the hardware clock (/sys/class/rtc/rtc0:
// since_epoch, else date + time read as UTC, the kernel's own convention
// for those files), the kernel's sync state (adjtimex(2) through
// ClockSource), and timedatectl's NTP state (`timedatectl show -p NTP -p
// NTPSynchronized`, systemd 239+, through the CommandRunner).
#pragma once

#include <chrono>
#include <string_view>

#include "model/incident.h"
#include "sources/incident/host.h"
#include "sources/kernel_log/command_runner.h"
#include "util/fs_root.h"

namespace gt {

/// The RTC's time in Unix seconds, or nullopt.
std::optional<int64_t> read_rtc_unix_s(const FsRoot& root);

/// "NTP=yes\nNTPSynchronized=no" -> ntp_enabled, ntp_synchronised.
void parse_timedatectl(std::string_view text, ClockState& clock);

struct ClockOptions {
  const ClockSource* clock = nullptr;     ///< required
  const CommandRunner* runner = nullptr;  ///< required
  std::chrono::milliseconds timeout{2000};
};

/// Fills out.clock (all but the future files, which the --path walk
/// counts); what cannot be read is one line in out.unread.
void read_clock(const FsRoot& root, const ClockOptions& o, Incident& out);

}  // namespace gt
