// Joins an NVML-reported PID with what /proc says about it: name, command
// line, user, parent, start time, namespace PIDs and cgroup owner.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Fills the /proc-derived fields of `p` (p.pid is set): visible, name
/// (comm), cmdline (argv joined by single spaces, trailing NULs dropped;
/// empty cmdline -> nullopt, e.g. kernel threads), uid (real uid from status),
/// user (from <root>/etc/passwd; nullopt if no entry), ppid, nspid (NSpid:
/// line, all levels), start_time_unix_s (btime from <root>/proc/stat + stat
/// field 22 / clock ticks), owner (parse_cgroup_owner).
/// If /proc/PID does not exist: visible=false and visibility_note = "PID <n>
/// is not visible in this PID namespace (NVML reports host PIDs; run on the
/// host or with --pid=host)". If a file vanishes mid-read (ENOENT/ESRCH: the
/// process exited), every /proc field is reset to nullopt, visible=false and
/// the note is "process <n> exited while being read". Any other failure on one
/// file (PermissionDenied, malformed text) leaves just that field null.
void fill_process_details(const FsRoot& root, GpuProcess& p);

/// The fields of /proc/PID/stat we use.
struct ProcStat {
  char state;
  uint32_t ppid;
  uint64_t start_time_ticks;     ///< field 22, clock ticks since boot
  std::optional<uint32_t> pgrp;  ///< field 5, the process group (its launcher's PID, for workers)
};

/// Parses /proc/PID/stat text; handles a comm with spaces and ')' inside
/// (the comm runs to the last ')'). Returns nullopt when malformed.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

/// Boot time in Unix seconds ("btime" in <root>/proc/stat); nullopt if unknown.
std::optional<int64_t> read_boot_time_unix_s(const FsRoot& root);

/// When a process started, in Unix seconds: `btime` plus its start ticks
/// (stat field 22) at this machine's clock rate. Null when btime is unknown
/// or the sum is no time in 1970..9999 (plausible_unix_s): a PID 1 whose
/// start ticks are absurd is "created" at an unknown time, never in year
/// 1550575222 (issue 48), and every time from it reads back from JSON.
std::optional<int64_t> start_unix_s(std::optional<int64_t> btime, uint64_t start_ticks);

}  // namespace gt
