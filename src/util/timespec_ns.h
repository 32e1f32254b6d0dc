// A struct timespec (a file's mtime, a clock) as int64 nanoseconds. The
// plain tv_sec * 1e9 + tv_nsec overflows int64 (undefined behaviour) for
// any time after 2262-04-11 or before 1677-09-21, and such mtimes are real:
// a skewed clock, `touch -d`, an archive restored with its times. Every
// timespec becomes nanoseconds here, saturating: later than the range is
// INT64_MAX, earlier is INT64_MIN; a caller that reads the value as a time
// treats either end as "no usable time" (timespec_ns_saturated).
#pragma once

#include <time.h>

#include <cstdint>
#include <limits>

namespace gt {

inline constexpr int64_t kNsPerS = 1'000'000'000;

/// `ts` in nanoseconds since the epoch, clamped to int64's range. A tv_nsec
/// outside 0..999999999 (never from the kernel) is clamped into it first.
inline int64_t timespec_ns(const struct timespec& ts) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t nsec = ts.tv_nsec < 0 ? 0 : ts.tv_nsec >= kNsPerS ? kNsPerS - 1 : ts.tv_nsec;
  const int64_t sec = static_cast<int64_t>(ts.tv_sec);
  // sec * 1e9 + nsec stays in range iff sec is within these (nsec >= 0).
  if (sec > (kMax - nsec) / kNsPerS) return kMax;
  if (sec < kMin / kNsPerS) return kMin;
  return sec * kNsPerS + nsec;
}

/// True for a value timespec_ns clamped: not a time to compute with.
inline bool timespec_ns_saturated(int64_t ns) {
  return ns == std::numeric_limits<int64_t>::max() || ns == std::numeric_limits<int64_t>::min();
}

}  // namespace gt
