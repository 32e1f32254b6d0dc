#include "data/recent_window.h"

#include <algorithm>

namespace gt {

const char* anchor_kind_name(AnchorKind k) {
  switch (k) {
    case AnchorKind::kNewestSample:
      return "newest_sample";
    case AnchorKind::kNewestFile:
      return "newest_file";
    case AnchorKind::kWritingPaused:
      return "before_pause";
    case AnchorKind::kCrash:
      return "crash";
  }
  return "?";
}

std::vector<RecentAnchor> recent_anchors(std::vector<int64_t> mtimes, int64_t window_s,
                                         std::optional<int64_t> crash_unix_s, AnchorKind first) {
  std::vector<RecentAnchor> out;
  std::sort(mtimes.begin(), mtimes.end(), std::greater<>());
  if (!mtimes.empty()) out.push_back({first, mtimes.front()});
  // Newest first: a gap longer than the window below mtimes[i-1] ends a
  // stretch of writing at mtimes[i].
  size_t pauses = 0;
  for (size_t i = 1; i < mtimes.size() && pauses < kMaxPauseAnchors; ++i)
    if (mtimes[i - 1] - mtimes[i] > window_s) {
      out.push_back({AnchorKind::kWritingPaused, mtimes[i]});
      ++pauses;
    }
  if (crash_unix_s) out.push_back({AnchorKind::kCrash, *crash_unix_s});
  return out;
}

bool in_recent_window(int64_t mtime, const std::vector<RecentAnchor>& anchors, int64_t window_s) {
  return std::any_of(anchors.begin(), anchors.end(), [&](const RecentAnchor& a) {
    return mtime <= a.unix_s && mtime >= a.unix_s - window_s;
  });
}

}  // namespace gt
