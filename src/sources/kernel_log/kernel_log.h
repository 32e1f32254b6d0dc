// Reads NVIDIA messages (Xid, SXid, "fallen off the bus") from the kernel
// log: /dev/kmsg for this boot, journalctl and /var/log/kern.log for the
// previous one, or one file given on the command line.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "sources/kernel_log/command_runner.h"
#include "util/fs_root.h"

namespace gt {

/// What parsing one text gave.
struct ParsedKernelLog {
  std::vector<KernelLogEvent> events;
  uint64_t lines = 0;                  ///< non-empty lines looked at
  uint64_t unparsed_nvidia_lines = 0;  ///< Xid/SXid/fallen-off lines of no known form
  /// Some line had a kernel log's form (a /dev/kmsg record, a dmesg,
  /// journalctl or syslog stamp, "kernel:", NVRM/nvidia words): false for a
  /// file that is no kernel log (a shopping list, random bytes), whose lack
  /// of Xid lines says nothing.
  bool log_form_seen = false;
};

/// Parses kernel log text of any form we meet: raw /dev/kmsg records
/// ("6,1234,5678901,-;NVRM: Xid ..."), dmesg ("[ 1234.567890] NVRM: ..."),
/// dmesg -T ("[Mon Jan  6 10:00:00 2025] ..."), dmesg --time-format iso and
/// --decode ("kern  :warn  : 2025-01-21T02:21:33,498559+00:00 ..."), journalctl
/// short / short-iso / short-precise ("Jan 06 10:00:00 host kernel: ..."),
/// syslog / kern.log (RFC 3164 and RFC 3339 stamps, optional "[ mono]" after
/// "kernel:"), bare "kernel: NVRM: ..." and bare "NVRM: ..." lines.
/// Events: "xid" for "NVRM: Xid (<bus>): <code>, ..." (bus with or without
/// "PCI:", code kept even when unknown, pid/name taken when printed and not
/// "<unknown>"); "sxid" for "nvidia-nvswitchN: SXid (PCI:...): <code>, ..." (the
/// "Severity ..." and "Data {...}" lines after a header join its event);
/// "fallen-off-bus" for the Xid-less forms, single-line or split over several
/// lines/records ("NVRM: The NVIDIA GPU <bus>" ... "fallen off the bus"). A
/// fallen-off-bus message next to an Xid 79 for the same GPU is folded into
/// that event. Continuation lines (indented, or "\x0a" inside a kmsg record)
/// are joined to the event before them with " | ". Bus ids are canonical
/// "dddd:bb:dd.f" lowercase. Timestamps: monotonic_s from "[ 12.3]" or kmsg;
/// time_unix_s from wall-clock stamps (local time when they carry no offset;
/// RFC 3164 stamps get the latest year not in the future). `boot` is copied
/// into each event. Non-NVIDIA lines are ignored; garbage never crashes.
/// Storms fold as they are read (storm.h): every line of the same (kind,
/// code, bus, boot) is one event with count, last_* times and up to 8
/// distinct details. Xid 13/31/74/144-150/154 payloads are decoded into
/// `decoded` (xid_decode.h); an Xid 163 followed by an Xid 162 on the same
/// GPU gets cancelled_by_code 162 (cancellation.h). Implemented in
/// nvrm_events.cc (lines: line_format.cc).
ParsedKernelLog parse_kernel_log_text(std::string_view text, LogBoot boot);

/// How to read the kernel log.
struct KernelLogOptions {
  std::optional<std::string>
      file;  ///< --kernel-log FILE: read only this (boot "file"); "-" = stdin
  std::chrono::milliseconds command_timeout{3000};  ///< for journalctl
  const CommandRunner* runner = nullptr;            ///< nullptr = the real one; tests pass a fake
};

/// Reads the NVIDIA kernel messages of this boot and the previous one; one
/// KernelLog::Source per place tried, in order:
/// - with `file`: only that file (or stdin for "-"), boot "file"; unreadable ->
///   error "cannot open X: <strerror>".
/// - "/dev/kmsg" (<root>/dev/kmsg; a regular file of records in fixture trees),
///   boot "current": opened O_NONBLOCK, lseek(SEEK_SET) to the oldest record
///   still buffered, read until EAGAIN/EOF. Absent -> error "not found";
///   EPERM/EACCES -> "permission denied (run as root or with CAP_SYSLOG)".
///   time_unix_s = btime (<root>/proc/stat) + monotonic, when btime is known.
/// - "journalctl -k -b -1" when root is "/" or a runner is given (a fixture
///   tree's, which answers from its recording or is absent: no source), boot "previous", through
///   the runner with command_timeout; failure -> error = journalctl's first stderr line ("No
///   journal files were found."), or "timed out after N ms", or the spawn error.
/// - "/var/log/kern.log.1" and "/var/log/kern.log" when present (last 256 MiB):
///   events before btime are "previous", later ones "current". When kmsg was
///   read, current-boot kern.log events are kept only if older than the oldest
///   kmsg record (the ring buffer wrapped); previous-boot events that repeat a
///   journalctl event (same kind, code, bus, pid, detail, within 5 s) are
///   dropped. Without btime or a wall-clock stamp an event's boot is unknown:
///   "current" if kmsg was not read, else dropped.
/// Events come previous boot first (by time when all are timed), then current;
/// each boot's events from all its sources are folded again into one per key.
/// Implemented in readers.cc.
/// Never throws; never blocks past the timeout (except reading stdin).
KernelLog read_kernel_log(const FsRoot& root, const KernelLogOptions& options);

}  // namespace gt
