// Memory across boots (--state-dir): in which boots each GPU showed the
// findings that a reboot is supposed to clear (an Xid, a recovery action).
// Read before judging, so the checks can escalate a repeat offender.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fingerprint.h"
#include "model/pcie_aer.h"

namespace gt {

/// A boot gpu-triage ran in (oldest first in GpuHistory::boots).
struct HistoryBoot {
  std::string boot_id;  ///< /proc/sys/kernel/random/boot_id
  int64_t first_seen_unix_s = 0;
  int64_t last_seen_unix_s = 0;
  /// The node as the boot's first and latest run saw it (model/
  /// fingerprint.h); null in a record written before version 2, and for a
  /// boot recorded only from the journal (the previous boot's Xids).
  std::optional<Fingerprint> first_fingerprint;
  std::optional<Fingerprint> last_fingerprint;
  /// The notes of what changed (info change.* findings, by
  /// Finding::said_once_key) an operator's triage has shown in this boot:
  /// later runs of the boot do not say them again (the "what happened"
  /// timeline still does). Absent in records written before.
  std::vector<std::string> said_changes;
  bool operator==(const HistoryBoot&) const = default;
};

/// One finding id on one GPU and the boots it appeared in (each once).
struct FindingBoots {
  std::string finding_id;  ///< "gpu.xid.79", "gpu.recovery_action"
  std::vector<std::string> boot_ids;
  bool operator==(const FindingBoots&) const = default;
};

struct GpuRecord {
  std::string uuid;
  std::vector<FindingBoots> findings;
  bool operator==(const GpuRecord&) const = default;
};

/// A GPU's or bridge's AER totals as the latest run read them (issue 38):
/// the next run says how many are new since. The kernel's counters start
/// at zero with each boot (and each re-enumeration of the device).
struct AerRecord {
  std::string bus_id;   ///< "0000:15:01.0"
  std::string boot_id;  ///< the boot they were read in
  int64_t read_unix_s = 0;
  AerTotals totals;
  bool operator==(const AerRecord&) const = default;
};

struct GpuHistory {
  std::string file;                    ///< the state file read (and written)
  std::optional<std::string> boot_id;  ///< this run's boot
  /// The boot before it, from the journal's boot list (in /proc's dashed
  /// form): the previous boot's Xids are recorded under it. Null when the
  /// journal holds no previous boot (not recorded then, never guessed).
  std::optional<std::string> previous_boot_id;
  std::optional<int64_t> previous_boot_first_unix_s;  ///< its first journal entry
  std::vector<HistoryBoot> boots;                     ///< bounded: the latest kMaxBoots
  std::vector<GpuRecord> gpus;                        ///< by UUID, in the order first seen
  /// The latest run's AER totals, one per GPU and bridge read (empty in a
  /// record written before they were kept).
  std::vector<AerRecord> aer;
  bool operator==(const GpuHistory&) const = default;
};

}  // namespace gt
