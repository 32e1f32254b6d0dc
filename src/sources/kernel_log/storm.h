// Storm de-duplication: one node can log hundreds of thousands of lines of
// one Xid (xid-catalog.md, "Storm de-duplication and rate limits": ~800K Xid
// 95 lines with 29 distinct messages). Every line of the same (kind, code,
// bus id, boot) folds into ONE event, across the whole text parsed (a boot),
// not only consecutive runs: eight GPUs logging in turn never make a run, and
// interleaved 13/43 or 45/94 lines would otherwise keep one event per line.
// The event keeps its first line (its own fields), the count, the last line's
// times (last_*), and up to kMaxDistinctDetails distinct details; memory is
// bounded by the number of keys, not of lines. What is lost: the per-line
// pid/name and the order of lines of different keys (the checks group by the
// same key anyway).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/snapshot.h"

namespace gt::klog {

constexpr size_t kMaxDistinctDetails = 8;

/// Folds events as they come; keeps them in order of their first line.
class StormFolder {
 public:
  /// Folds `e` (a single line or an already folded event) into the event of
  /// its key, or appends it. Returns the event's index and whether it is new.
  std::pair<size_t, bool> add(KernelLogEvent e);
  std::vector<KernelLogEvent>& events() { return events_; }
  /// Forgets the event at `index` (an Xid 79's "fallen off" line folded into
  /// the Xid); indices after it shift down by one.
  void erase(size_t index);
  std::vector<KernelLogEvent> take() { return std::move(events_); }

 private:
  void fold(size_t into, const KernelLogEvent& e);
  void note_detail(size_t into, const std::string& detail);

  std::vector<KernelLogEvent> events_;
  std::unordered_map<std::string, size_t> index_;
  /// Per event: hashes of the details seen beyond the kept ones, so
  /// distinct_details_dropped counts distinct details, not lines. Capped at
  /// kMaxRememberedHashes in all; past that an unremembered detail counts as
  /// new (an upper bound).
  std::vector<std::unordered_set<uint64_t>> dropped_;
  size_t remembered_ = 0;
};

/// Folds a list of events (from several sources of one boot) by key.
std::vector<KernelLogEvent> fold_events(std::vector<KernelLogEvent> events);

}  // namespace gt::klog
