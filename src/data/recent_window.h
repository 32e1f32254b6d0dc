// Quick mode's crash window: which times writing stopped, so the files
// written just before them get every CRC checked. Anchored on the samples'
// mtimes (and the crash time when the incident timeline knows it), never on
// a file that is no sample: a progress.json written now, or one sample
// copied back in, must not move the window off the files the crash hit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gt {

/// What a window of quick mode's deep check ends at.
enum class AnchorKind : uint8_t {
  kNewestSample,   ///< the newest sample's mtime
  kNewestFile,     ///< no file is a sample of the layout: the newest file's
  kWritingPaused,  ///< the last sample before a pause longer than the window
  kCrash,          ///< the crash, from the incident timeline
};

/// "newest_sample", "newest_file", "before_pause", "crash" (the JSON word).
const char* anchor_kind_name(AnchorKind k);

/// One time writing stopped: the files written in the window before it
/// are at risk.
struct RecentAnchor {
  AnchorKind kind = AnchorKind::kNewestSample;
  int64_t unix_s = 0;
  bool operator==(const RecentAnchor&) const = default;
};

/// Windows before at most this many pauses of writing are checked (the
/// newest ones), besides the newest sample's and the crash's: a job
/// restarted a hundred times costs three windows, not a hundred.
constexpr size_t kMaxPauseAnchors = 2;

/// Quick mode's risk-based deep check: which files, and why.
struct RecentCheck {
  int64_t window_s = 0;
  /// The newest sample's mtime (nullopt: nothing to anchor on).
  std::optional<int64_t> newest_unix_s;
  /// Newest first: the newest sample, the pauses before it, then the crash.
  std::vector<RecentAnchor> anchors;
  uint64_t files = 0;  ///< deep-checked because recent
};

/// The anchors from the samples' mtimes (any order; `first` names the
/// newest one: kNewestFile when they are every file's): the newest one, and
/// the last sample before each pause longer than `window_s` (the newest
/// kMaxPauseAnchors), then `crash_unix_s`. Empty when there is no sample
/// and no crash time.
std::vector<RecentAnchor> recent_anchors(std::vector<int64_t> sample_mtimes, int64_t window_s,
                                         std::optional<int64_t> crash_unix_s,
                                         AnchorKind first = AnchorKind::kNewestSample);

/// A file written within `window_s` before (or at) one of the anchors.
bool in_recent_window(int64_t mtime_unix_s, const std::vector<RecentAnchor>& anchors,
                      int64_t window_s);

}  // namespace gt
