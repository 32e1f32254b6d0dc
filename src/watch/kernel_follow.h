// Following the kernel log while watch runs: /dev/kmsg (or --kernel-log
// FILE, e.g. a fixture a test appends to), read without blocking each tick,
// parsed and decoded by the triage's own reader (parse_kernel_log_text) and
// folded by its storm rules, so a storm of one Xid on one GPU is one event,
// said once.
//
// What was in the log when watch started is the baseline: judged (the
// verdict includes this boot's Xids) but not announced as new. Only events
// of a key not seen before are returned by poll().
//
// A record that spans two reads of a growing file is kept until its newline
// arrives. Limits: a line over kMaxPendingBytes is dropped; a file over
// kMaxBaselineBytes is read from its tail. Lines are parsed a chunk at a
// time, so an Xid 162 arriving in a later chunk than the 163 it cancels is
// not matched to it (the triage, reading the whole log, does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.h"
#include "sources/kernel_log/storm.h"

namespace gt {

class KernelLogFollower {
 public:
  static constexpr size_t kMaxPendingBytes = 64 * 1024;
  /// Bytes read per poll at most, so one tick stays short under a storm
  /// (the rest is read on the next ticks).
  static constexpr size_t kMaxReadPerPoll = 4 * 1024 * 1024;
  /// A regular file longer than this: only its tail is the baseline.
  static constexpr size_t kMaxBaselineBytes = 64 * 1024 * 1024;

  /// Opens `file` when given, else <root>/dev/kmsg. Never fails: an
  /// unreadable log is recorded in log().sources (said once, as the
  /// kernel_log.unreadable finding).
  KernelLogFollower(const std::string& root, const std::optional<std::string>& file);
  ~KernelLogFollower();
  KernelLogFollower(const KernelLogFollower&) = delete;
  KernelLogFollower& operator=(const KernelLogFollower&) = delete;

  /// Reads what was appended since the last call. Returns the events whose
  /// key is new (the first call returns none: it reads the baseline).
  std::vector<KernelLogEvent> poll();
  /// Every event so far, folded, and the source.
  const KernelLog& log() const { return log_; }
  bool readable() const { return fd_ >= 0; }

 private:
  void parse(std::string_view text, std::vector<KernelLogEvent>& fresh);
  void take_lines(std::vector<KernelLogEvent>& fresh);
  void start_file();

  int fd_ = -1;
  bool is_kmsg_ = false;
  bool baseline_read_ = false;
  std::string pending_;  ///< an unfinished last line of a regular file
  klog::StormFolder folder_;
  KernelLog log_;
};

}  // namespace gt
