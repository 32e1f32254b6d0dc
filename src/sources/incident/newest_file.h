// The newest file under a --path directory: when the job last wrote, and
// whether that was before the previous boot ended. The walk is bounded (a
// cap on entries, on depth and on time; `capped` says when it stopped
// short), never follows symlinks, and counts files dated in the future.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "model/incident.h"
#include "util/fs_root.h"

namespace gt {

struct WalkLimits {
  uint64_t max_entries = 50000;
  int max_depth = 6;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/// Files this far past `now` count as dated in the future.
inline constexpr int64_t kFutureSlackS = 60;

/// Walks `dir` (as seen from "/") under `root`. A file dated more than
/// kFutureSlackS after `now` is counted in clock.future_files (and not
/// taken as the newest); with `now` unknown none is.
NewestFile find_newest_file(const FsRoot& root, const std::string& dir, std::optional<int64_t> now,
                            const WalkLimits& limits, ClockState& clock);

}  // namespace gt
