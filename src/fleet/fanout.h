// Bounded parallel execution: at most `fanout` jobs at a time (pdsh -f).
#pragma once

#include <cstddef>
#include <functional>

namespace gt {

/// Calls job(i) for every i in [0, n) on at most `fanout` threads (at least
/// 1), each taking the next index as it finishes one, and returns when all
/// have returned. Jobs must bound their own time (check_host kills ssh at
/// the per-host deadline), so this returns within about
/// ceil(n / fanout) x the deadline in the worst case.
void run_bounded(size_t n, size_t fanout, const std::function<void(size_t)>& job);

}  // namespace gt
