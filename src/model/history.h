// Memory across boots (--state-dir): in which boots each GPU showed the
// findings that a reboot is supposed to clear (an Xid, a recovery action).
// Read before judging, so the checks can escalate a repeat offender.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"
#include "model/fingerprint.h"
#include "model/pcie_aer.h"

namespace gt {

/// Bounds of a record as read: this tool keeps 16 boots and a node has a
/// few GPUs, so a record past these was not written by it (a record of
/// 170,000 boots under the size cap cost every run 20-30 s once).
inline constexpr size_t kMaxRecordBoots = 1024;
inline constexpr size_t kMaxRecordGpus = 1024;
inline constexpr size_t kMaxRecordFindings = 1024;  ///< per GPU
inline constexpr size_t kMaxRecordTextBytes = 256;  ///< a boot id, a UUID, a finding id
inline constexpr size_t kMaxRecordAer = 1024;       ///< AER records (GPUs and bridges)
/// Changes said in one boot that are kept (the newest; an older one said
/// again is a note more, never a change lost).
inline constexpr size_t kMaxSaidChanges = 64;
/// A boot id, a UUID, a finding id, a bus id of the record as read.
inline constexpr Within kRecordText{kMaxRecordTextBytes};

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

// Each type's fields once, in the order the state file and the report
// write them (model/describe.h): a key that older records lack may be
// absent, any other missing key makes the record corrupt.
void describe(SelfOf<HistoryBoot> auto& b, auto& v) {
  v("boot_id", b.boot_id, kRecordText);
  v("first_seen_unix_s", b.first_seen_unix_s, PlausibleTime{});
  v("last_seen_unix_s", b.last_seen_unix_s, PlausibleTime{});
  v("first_fingerprint", b.first_fingerprint);  // null or absent: version 1
  v("last_fingerprint", b.last_fingerprint);
  v("said_changes", b.said_changes,
    Within{kMaxSaidChanges, KeyIs::kMayBeAbsent, kMaxPrintTextBytes});
}

void describe(SelfOf<FindingBoots> auto& f, auto& v) {
  v("id", f.finding_id, kRecordText);
  v("boot_ids", f.boot_ids, Within{kMaxRecordBoots, KeyIs::kRequired, kMaxRecordTextBytes});
}

void describe(SelfOf<GpuRecord> auto& g, auto& v) {
  v("uuid", g.uuid, kRecordText);
  v("findings", g.findings, Within{kMaxRecordFindings});
}

/// Its totals sit beside its other keys.
void describe(SelfOf<AerRecord> auto& a, auto& v) {
  v("bus_id", a.bus_id, kRecordText);
  v("boot_id", a.boot_id, kRecordText);
  v("read_unix_s", a.read_unix_s, PlausibleTime{});
  describe(a.totals, v);
}

/// The record's own keys: what the state file holds after its schema.
void describe_record(SelfOf<GpuHistory> auto& h, auto& v) {
  v("boots", h.boots, Within{kMaxRecordBoots});
  v("gpus", h.gpus, Within{kMaxRecordGpus});
  v("aer", h.aer, Within{kMaxRecordAer, KeyIs::kMayBeAbsentOrNull});
}

/// The record as the report holds it: this run's keys, then the record's.
void describe(SelfOf<GpuHistory> auto& h, auto& v) {
  v("file", h.file);
  v("boot_id", h.boot_id);
  v("previous_boot_id", h.previous_boot_id);
  v("previous_boot_first_unix_s", h.previous_boot_first_unix_s);
  describe_record(h, v);
}

}  // namespace gt
