// Which findings of a run go into the record across boots, adding a run to
// the record (once per boot and finding), bounding and clearing it. Pure:
// no file is touched here (state_file.h reads and writes).
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/history.h"
#include "model/snapshot.h"

namespace gt {

/// Boots kept in the record; older ones are dropped.
inline constexpr size_t kMaxHistoryBoots = 16;

/// Boots whose latest fingerprint is kept (the newest); the first
/// fingerprint only for this run's boot.
inline constexpr size_t kFingerprintBoots = 4;

/// A finding a reboot is meant to clear, seen on one GPU in this boot.
struct Observed {
  std::string uuid;
  std::string finding_id;  ///< "gpu.xid.79", "gpu.recovery_action"
  /// kCurrent, or kPrevious: an Xid of the previous boot's log, recorded
  /// under that boot's id (the usual cycle: Xid, hang, reboot, triage).
  LogBoot boot = LogBoot::kCurrent;
  bool operator==(const Observed&) const = default;
};

/// The findings of this run worth remembering: an Xid (gpu.xid.N, also
/// joined into another finding) logged in the current or the previous boot
/// and not stood down to info, and gpu.recovery_action; on a GPU whose UUID is known
/// (NVML's, or the driver's /proc information for a GPU NVML lost).
std::vector<Observed> observed_findings(const NodeSnapshot& s, const std::vector<Finding>& f);

/// The boots (oldest first) in which `uuid` showed `finding_id`, this
/// run's boot included when `now` has it; distinct.
std::vector<std::string> boots_with(const GpuHistory& h, const std::string& uuid,
                                    const std::string& finding_id,
                                    const std::vector<Observed>& now);

/// Adds this run (h.boot_id at `now_unix_s`) with its observations: a boot
/// and a finding are recorded once however often gpu-triage runs in it.
/// Keeps the latest kMaxHistoryBoots boots. `fingerprint` becomes the boot's
/// latest (and, the first time, its first).
void add_run(GpuHistory& h, int64_t now_unix_s, const std::vector<Observed>& observed,
             const std::optional<Fingerprint>& fingerprint = std::nullopt);

/// This boot's entry records `keys` (Finding::said_once_key of the notes an
/// operator's triage showed) as said, the newest kMaxSaidChanges
/// (model/history.h); nothing without a boot id or entry.
void mark_said(GpuHistory& h, const std::vector<std::string>& keys);

/// The record's AER totals become this run's (`s`'s GPUs and bridges whose
/// counters were read, at most kMaxHistoryAer), read in h.boot_id at
/// `now_unix_s`. Nothing changes without a boot id; a run that read no AER
/// file keeps the earlier totals (a node without AER says nothing).
inline constexpr size_t kMaxHistoryAer = 256;
void record_aer(GpuHistory& h, const NodeSnapshot& s, int64_t now_unix_s);

/// Forgets everything (uuid empty) or one GPU; returns the number of GPU
/// records removed.
size_t clear_history(GpuHistory& h, const std::string& uuid);

/// "5dffeb08a27344d5ae9e2fc244bbcbc5" (journald) -> the dashed form of
/// /proc/sys/kernel/random/boot_id; nullopt when it is not 32 hex digits.
std::optional<std::string> dashed_boot_id(const std::string& id);

/// The boot's entry, or nullptr.
const HistoryBoot* find_boot(const GpuHistory& h, const std::string& boot_id);

}  // namespace gt
