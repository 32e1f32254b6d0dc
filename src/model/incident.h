// Incident: what happened to this node, and when (issue 15). Plain data
// filled by sources/incident and read by the checks and renderers. Unknown
// is null, never 0; times are Unix seconds.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// One line of the "what happened" section, in time order.
struct IncidentLine {
  std::optional<int64_t> time_unix_s;  ///< null: when is not known
  std::string what;                    ///< "previous boot ended abruptly (...)"
  std::string source;                  ///< "journal", "/proc/stat", "pstore", "/data"...
  bool operator==(const IncidentLine&) const = default;
};

/// How often one kind of message appeared near the end of the previous boot.
struct MessageTally {
  uint64_t count = 0;
  std::optional<int64_t> first_unix_s;
  std::optional<int64_t> last_unix_s;
  std::optional<std::string> example;  ///< the first such message
  bool operator==(const MessageTally&) const = default;
};

/// How the previous boot ended. Declared in the order of the names
/// (alphabetical), so anything ordered by it orders as it did by the word.
enum class BootEnding {
  kAbrupt,         ///< no shutdown record: power loss, a killed VM, a hard hang
  kCleanShutdown,  ///< a shutdown was logged
  kKernelPanic,    ///< a panic in the journal or a crash record
  kReboot,         ///< a requested reboot was logged
  kUnknown,        ///< the journal was not read (or held no entry)
};
inline constexpr std::array kBootEndings{BootEnding::kAbrupt, BootEnding::kCleanShutdown,
                                         BootEnding::kKernelPanic, BootEnding::kReboot,
                                         BootEnding::kUnknown};
/// "abrupt", "clean_shutdown", "kernel_panic", "reboot", "unknown" (the JSON
/// "ending").
const char* boot_ending_name(BootEnding e);

/// The boot before this one, from the journal.
struct PreviousBoot {
  std::optional<std::string> boot_id;
  std::optional<int64_t> first_entry_unix_s;
  std::optional<int64_t> last_entry_unix_s;
  BootEnding ending = BootEnding::kUnknown;
  std::optional<std::string> ending_evidence;  ///< the message that says so
  uint64_t entries_read = 0;
  uint64_t garbage_lines = 0;  ///< lines that were not journal JSON
  bool capped = false;         ///< the read stopped at the entry cap
  /// Counted over the last kLastMinutesS of the boot.
  MessageTally io_errors;
  MessageTally read_only_remounts;
  MessageTally hung_tasks;
  MessageTally oom_kills;
  MessageTally storage_resets;  ///< NVMe controller / SCSI resets and aborts
  MessageTally xids;
  bool operator==(const PreviousBoot&) const = default;
};

/// A crash record: a pstore entry, one systemd-pstore archived, a kdump dump.
struct CrashRecord {
  std::string source;                    ///< "pstore", "systemd-pstore", "kdump"
  std::string path;                      ///< as seen from "/"
  std::optional<int64_t> time_unix_s;    ///< the file's mtime
  std::vector<std::string> panic_lines;  ///< "Kernel panic - not syncing: ..." and after
  bool operator==(const CrashRecord&) const = default;
};

/// Whether the clock can be trusted (every other time depends on it).
struct ClockState {
  std::optional<int64_t> system_unix_s;
  std::optional<int64_t> rtc_unix_s;        ///< /sys/class/rtc/rtc0
  std::optional<int64_t> rtc_offset_s;      ///< system - RTC
  std::optional<bool> kernel_synchronised;  ///< adjtimex(2): not TIME_ERROR / STA_UNSYNC
  std::optional<int64_t> kernel_max_error_us;
  std::optional<bool> ntp_enabled;       ///< timedatectl NTP=
  std::optional<bool> ntp_synchronised;  ///< timedatectl NTPSynchronized=
  uint64_t future_files = 0;             ///< files dated after now in the --path dirs
  std::optional<std::string> future_example;
  bool operator==(const ClockState&) const = default;
};

/// The newest file under one --path directory: the job's last write.
struct NewestFile {
  std::string dir;
  std::optional<std::string> path;
  std::optional<int64_t> mtime_unix_s;
  uint64_t entries_seen = 0;
  bool capped = false;  ///< the walk stopped at its entry or depth cap
  std::optional<std::string> error;
  bool operator==(const NewestFile&) const = default;
};

struct Incident {
  std::optional<int64_t> boot_time_unix_s;    ///< /proc/stat btime
  std::optional<std::string> boot_id;         ///< /proc/sys/kernel/random/boot_id
  std::optional<double> uptime_s;             ///< /proc/uptime
  std::optional<PreviousBoot> previous_boot;  ///< null: the journal was not read
  std::vector<CrashRecord> crash_records;
  ClockState clock;
  std::vector<NewestFile> newest_files;
  std::vector<IncidentLine> timeline;  ///< time order; undated lines last
  std::vector<std::string> unread;     ///< what could not be read, one line each
  bool operator==(const Incident&) const = default;
};

/// Puts the timeline in time order, undated lines last, equal times as added.
inline void sort_timeline(std::vector<IncidentLine>& timeline) {
  std::stable_sort(timeline.begin(), timeline.end(),
                   [](const IncidentLine& a, const IncidentLine& b) {
                     if (!a.time_unix_s || !b.time_unix_s) return a.time_unix_s && !b.time_unix_s;
                     return *a.time_unix_s < *b.time_unix_s;
                   });
}

/// The previous boot's "last minutes": messages this close to its last entry.
inline constexpr int64_t kLastMinutesS = 15 * 60;
/// The clock finding's bound on system time vs the RTC.
inline constexpr int64_t kRtcDriftBoundS = 120;

/// "14 I/O errors, 3 hung tasks" from the previous boot's tallies; "" when
/// none.
std::string last_minutes_summary(const PreviousBoot& b);

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<IncidentLine> auto& l, auto& v) {
  v("time", l.time_unix_s, TimeView{});
  v("time_unix_s", l.time_unix_s);
  v("what", l.what);
  v("source", l.source);
}

void describe(SelfOf<MessageTally> auto& t, auto& v) {
  v("count", t.count);
  v("first", t.first_unix_s, AsTime{});
  v("last", t.last_unix_s, AsTime{});
  v("example", t.example);
}

void describe(SelfOf<PreviousBoot> auto& b, auto& v) {
  v("boot_id", b.boot_id);
  v("first_entry", b.first_entry_unix_s, AsTime{});
  v("last_entry", b.last_entry_unix_s, TimeView{});
  v("last_entry_unix_s", b.last_entry_unix_s);
  v("ending", b.ending);
  v("ending_evidence", b.ending_evidence);
  v("entries_read", b.entries_read);
  v("garbage_lines", b.garbage_lines);
  v("capped", b.capped);
  v.constant("last_minutes_s", kLastMinutesS);
  v("io_errors", b.io_errors);
  v("read_only_remounts", b.read_only_remounts);
  v("hung_tasks", b.hung_tasks);
  v("oom_kills", b.oom_kills);
  v("storage_resets", b.storage_resets);
  v("xids", b.xids);
}

void describe(SelfOf<CrashRecord> auto& r, auto& v) {
  v("source", r.source);
  v("path", r.path);
  v("time", r.time_unix_s, AsTime{});
  v("panic_lines", r.panic_lines);
}

void describe(SelfOf<ClockState> auto& c, auto& v) {
  v("system_time", c.system_unix_s, AsTime{});
  v("rtc_time", c.rtc_unix_s, AsTime{});
  v("rtc_offset_s", c.rtc_offset_s);
  v.constant("rtc_drift_bound_s", kRtcDriftBoundS);
  v("kernel_synchronised", c.kernel_synchronised);
  v("kernel_max_error_us", c.kernel_max_error_us);
  v("ntp_enabled", c.ntp_enabled);
  v("ntp_synchronised", c.ntp_synchronised);
  v("future_files", c.future_files);
  v("future_example", c.future_example);
}

void describe(SelfOf<NewestFile> auto& n, auto& v) {
  v("dir", n.dir);
  v("path", n.path);
  v("mtime", n.mtime_unix_s, AsTime{});
  v("entries_seen", n.entries_seen);
  v("capped", n.capped);
  v("error", n.error);
}

void describe(SelfOf<Incident> auto& in, auto& v) {
  v("boot_time", in.boot_time_unix_s, TimeView{});
  v("boot_time_unix_s", in.boot_time_unix_s);
  v("boot_id", in.boot_id);
  v("uptime_s", in.uptime_s);
  v("timeline", in.timeline);
  v("previous_boot", in.previous_boot);
  v("crash_records", in.crash_records);
  v("clock", in.clock);
  v("newest_files", in.newest_files);
  v("unread", in.unread);
}

}  // namespace gt
