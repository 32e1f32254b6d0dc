// The state `gpu-triage watch` keeps between ticks: the last report, a short
// history per GPU, what each server did, and the changes said so far. The
// renderers read it; only apply() and note() change it. Memory is bounded:
// kHistoryPoints per GPU series, kMaxRecentChanges changes, one entry per
// GPU and per server present.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/report.h"
#include "watch/changes.h"
#include "watch/sparkline.h"

namespace gt {

inline constexpr size_t kMaxRecentChanges = 200;

/// What the screen shows of one GPU over time.
struct GpuTrack {
  Series util_pct, memory_pct, power_w, temp_c;
};

/// What watch remembers of one server between ticks.
struct ServerTrack {
  bool was_busy = false;   ///< some tick showed work on its GPUs
  int idle_ticks = 0;      ///< consecutive ticks at 0% on all its GPUs
  bool said_idle = false;  ///< kServerIdle said, kServerBusy not yet
};

/// A server in one line: "SGLang pid-3141 (TP 8, GPUs 0-7)".
std::string describe_server(const Server& s);

/// The server holding memory on GPU `index` in `snap`, described; nullopt
/// when none (or several: then all of them, joined by " + ").
std::optional<std::string> server_on_gpu(const NodeSnapshot& snap, uint32_t index);

class WatchModel {
 public:
  /// Ticks in a row at 0% on all of a server's GPUs before it is said idle.
  static constexpr int kIdleTicks = 3;

  /// Takes one tick's judged report; returns what changed since the last
  /// (the first call returns one kStarted change with the verdict). The
  /// caller passes what it says to note().
  std::vector<Change> apply(Report report, int64_t now_unix_ms);
  /// Records the changes said this tick in the recent list.
  void note(const std::vector<Change>& changes);

  const Report& report() const { return report_; }
  bool started() const { return ticks_ > 0; }
  uint64_t ticks() const { return ticks_; }
  int64_t started_unix_ms() const { return started_unix_ms_; }
  const std::map<uint32_t, GpuTrack>& tracks() const { return tracks_; }
  const std::deque<Change>& recent() const { return recent_; }
  /// Findings raised since watch started (not in the first tick), by key.
  bool is_new(const Finding& f) const;

 private:
  void track_gpus(const NodeSnapshot& snap);
  void track_servers(const NodeSnapshot& prev, const NodeSnapshot& now, int64_t t,
                     std::vector<Change>& out);

  Report report_;
  uint64_t ticks_ = 0;
  int64_t started_unix_ms_ = 0;
  std::unordered_set<std::string> baseline_keys_;
  std::map<uint32_t, GpuTrack> tracks_;
  std::map<std::string, ServerTrack> servers_;
  std::deque<Change> recent_;
};

}  // namespace gt
