// What changed since the last tick of `gpu-triage watch`: the one record the
// log lines, the JSON lines and the screen's "new since start" list share.
// A change is said once, when it happens (a finding raised, then cleared: a
// GPU that stops answering is gpu.unresponsive raised; one kernel-log event;
// a bad file), never on every tick it stays true.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/finding.h"

namespace gt {

enum class ChangeKind {
  kStarted,         ///< the first tick: the verdict watch starts from
  kFindingRaised,   ///< a finding not in the previous tick
  kFindingCleared,  ///< a finding of the previous tick no longer raised
  kEvent,           ///< one driver event (kernel log or NVML event set)
  kServerIdle,      ///< a server that used its GPUs shows 0% on all of them
  kServerBusy,      ///< it uses them again
  kServerGone,      ///< a server's processes left the GPUs
  kServerNew,       ///< a server appeared on the GPUs
  kBadFile,         ///< a newly written file of --data DIR failed verification
  kStall,           ///< no new file in --data DIR for several usual intervals
  kResumed,         ///< new files again after a stall
  kDataGone,        ///< --data DIR vanished or is another filesystem now
  kDataBack,        ///< it is back
  kDataCreated,     ///< --data DIR appeared, or was made anew (followed by path)
  kNote,            ///< a one-time remark (no event support, unreadable log)
};

/// "started", "raised", "cleared", "gpu-unresponsive", ... (JSON "change").
const char* change_kind_name(ChangeKind k);

struct Change {
  int64_t time_unix_ms = 0;
  ChangeKind kind = ChangeKind::kNote;
  Severity severity = Severity::kInfo;
  std::string id;  ///< finding id, or the event's ("gpu.xid.79"); may be empty
  std::optional<uint32_t> gpu_index;
  std::optional<std::string> pci_bus_id;
  std::optional<std::string> server;  ///< "SGLang pid-3141 (TP 8, GPUs 0-7)"
  std::optional<std::string> path;
  std::string text;  ///< one line, what happened
};

/// The stable identity of a finding across ticks: id and subject, not its
/// evidence (numbers that move every tick would re-raise it).
std::string finding_key(const Finding& f);

/// Findings raised (in `now`, not in `before`) and cleared (the reverse),
/// raised ones first, each in its list's order (worst first).
std::vector<Change> diff_findings(const std::vector<Finding>& before,
                                  const std::vector<Finding>& now, int64_t time_unix_ms);

}  // namespace gt
