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
// Only two things are followed: /dev/kmsg, known by its device number
// (character device 1:11) and not by its name, and regular files. Any
// other character device (/dev/zero, a tty given by mistake), a FIFO, a
// socket, a directory or a block device is not a log (not_a_kernel_log):
// watch refuses it as --kernel-log, and the follower never reads one.
//
// A file is followed by name, as `tail -F` does: when another file is at
// the name (logrotate's default rename, then a new kern.log), what is left
// in the old one is read, then the new one from its start, every line of it
// new; when the file shrinks (copytruncate) it is read again from its
// start; a file that is not there yet is opened when it appears. Each is
// said once (take_notes: "/var/log/kern.log rotated, reopened").
//
// A record that spans two reads of a growing file is kept until its newline
// arrives. Limits: a line over kMaxPendingBytes is dropped; the baseline is
// at most kMaxBaselineBytes (a longer file: its tail), and every later poll
// reads at most kMaxReadPerPoll, so one poll is bounded whatever the source.
// Lines are parsed a chunk at a time, so an Xid 162 arriving in a later
// chunk than the 163 it cancels is not matched to it (the triage, reading
// the whole log, does).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.h"
#include "sources/kernel_log/not_a_log.h"
#include "sources/kernel_log/storm.h"

namespace gt {

/// For watch's --kernel-log FILE: why it cannot be followed (a usage
/// error), or nullopt. A FILE that does not exist (yet) or cannot be read
/// is not refused here: the follower says so and waits for it.
std::optional<std::string> refuse_kernel_log_file(const std::string& path);

class KernelLogFollower {
 public:
  static constexpr size_t kMaxPendingBytes = 64 * 1024;
  /// Bytes read per poll at most, so one tick stays short under a storm
  /// (the rest is read on the next ticks).
  static constexpr size_t kMaxReadPerPoll = 4 * 1024 * 1024;
  /// The baseline's bytes at most: a longer file is read from its tail.
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
  /// What happened to the file since the last call, one line each
  /// ("/var/log/kern.log rotated, reopened").
  std::vector<std::string> take_notes();

 private:
  void open_log(bool at_start);
  void follow_name(size_t& budget, std::vector<KernelLogEvent>& fresh);
  void read_available(size_t& budget, std::vector<KernelLogEvent>& fresh);
  void parse(std::string_view text, std::vector<KernelLogEvent>& fresh);
  void take_lines(std::vector<KernelLogEvent>& fresh);
  void close_log();

  std::string path_;
  int fd_ = -1;
  bool is_kmsg_ = false;
  bool by_name_ = false;  ///< a file, followed by name
  dev_t dev_ = 0;         ///< the open file's identity
  ino_t ino_ = 0;
  bool baseline_read_ = false;
  std::string pending_;  ///< an unfinished last line of a regular file
  std::vector<std::string> notes_;
  klog::StormFolder folder_;
  KernelLog log_;
};

}  // namespace gt
