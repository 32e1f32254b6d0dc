#include "data/progress.h"

#include <algorithm>
#include <numeric>

namespace gt {
namespace {

// Spearman's rank correlation of position against value (ties broken by
// position: a coarse clock cannot fake order).
double rank_correlation(const std::vector<double>& v) {
  size_t n = v.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return v[a] < v[b]; });
  double d2 = 0;
  for (size_t rank = 0; rank < n; ++rank) {
    double d = double(rank) - double(order[rank]);
    d2 += d * d;
  }
  double nn = double(n);
  return 1.0 - 6.0 * d2 / (nn * (nn * nn - 1.0));
}

/// The job's own pace: the intact samples' mtimes in time order, over the
/// last hour of writing, with idle stretches left out (a gap over 10 times
/// the median interval: the job stopped, crashed, was restarted). Time
/// order rather than index order, so a job whose workers write slices of
/// the index range side by side is counted at its whole pace.
void rate_from_mtimes(const std::vector<double>& mtimes, DataProgress& p) {
  std::vector<double> t = mtimes;
  std::sort(t.begin(), t.end());
  if (t.size() < 2) return;
  const double last = t.back();
  auto from = std::lower_bound(t.begin(), t.end(), last - 3600);
  std::vector<double> gaps;
  for (auto it = std::next(from); it < t.end(); ++it) gaps.push_back(*it - *std::prev(it));
  if (gaps.empty()) return;
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2];
  double active = 0;
  uint64_t counted = 0;
  for (double g : gaps)
    if (median <= 0 ? g <= 1.0 : g <= 10 * median) {
      active += g;
      ++counted;
    }
  if (active <= 0 || counted == 0) return;
  p.rate_samples_per_hour = double(counted) * 3600.0 / active;
  p.rate_source = "mtimes";
}

double mtime_of(const ScannedFile& f) { return double(f.mtime_unix_s) + f.mtime_nsec * 1e-9; }

/// The good samples' mtimes in the scan's file order (paths as listed).
std::vector<double> in_file_order(const DirScan& scan, std::vector<uint32_t> good) {
  std::sort(good.begin(), good.end());
  std::vector<double> out;
  for (uint32_t i : good) out.push_back(mtime_of(scan.files[i]));
  return out;
}

/// ... and in size order (a copy tool that sorts by size, smallest first).
std::vector<double> in_size_order(const DirScan& scan, std::vector<uint32_t> good) {
  std::stable_sort(good.begin(), good.end(), [&](uint32_t a, uint32_t b) {
    return scan.files[a].size_bytes < scan.files[b].size_bytes;
  });
  std::vector<double> out;
  for (uint32_t i : good) out.push_back(mtime_of(scan.files[i]));
  return out;
}

}  // namespace

bool copied_in_another_order(const std::vector<double>& by_index,
                             const std::vector<double>& by_file,
                             const std::vector<double>& by_size) {
  if (by_index.size() < 20) return false;
  const double index = rank_correlation(by_index);
  for (const std::vector<double>* other : {&by_file, &by_size}) {
    if (other->size() != by_index.size()) continue;
    const double r = rank_correlation(*other);
    if (r >= 0.95 && index < r - 0.2) return true;
  }
  return false;
}

bool mtimes_clustered(const std::vector<double>& mtimes, double& span_s, double max_span_s) {
  if (mtimes.size() < 20) return false;
  std::vector<double> sorted = mtimes;
  std::sort(sorted.begin(), sorted.end());
  size_t lo = sorted.size() / 20, hi = sorted.size() - 1 - sorted.size() / 20;
  span_s = sorted[hi] - sorted[lo];
  if (span_s > max_span_s) return false;
  double pace = double(hi - lo) / std::max(span_s, 1e-9);
  return pace > kMaxJobSamplesPerSecond || rank_correlation(mtimes) < 0.5;
}

void compute_progress(const DirScan& scan, const std::vector<uint32_t>& good,
                      const AnalysisOptions& opts, DataReport& r) {
  DataProgress& p = r.progress;
  p.samples_done = good.size();
  p.free_bytes = opts.free_bytes;
  if (opts.rate_per_s) {
    p.rate_samples_per_hour = *opts.rate_per_s * 3600.0;
    p.rate_source = "--rate";
  }
  if (!good.empty()) {
    int64_t last = INT64_MIN;
    uint64_t bytes = 0;
    std::vector<double> mtimes;
    mtimes.reserve(good.size());
    for (uint32_t i : good) {
      const ScannedFile& f = scan.files[i];
      last = std::max(last, f.mtime_unix_s);
      bytes += f.size_bytes;
      mtimes.push_back(double(f.mtime_unix_s) + f.mtime_nsec * 1e-9);
    }
    p.mean_sample_bytes = double(bytes) / double(good.size());
    double span = 0;
    p.mtimes_clustered = mtimes_clustered(mtimes, span);
    if (p.mtimes_clustered) p.clustered_span_s = span;
    // A copy at any speed: its mtimes follow the order it copied in (the
    // files' order, or their sizes), not the index the job wrote in.
    if (!p.mtimes_clustered &&
        copied_in_another_order(mtimes, in_file_order(scan, good), in_size_order(scan, good))) {
      p.mtimes_clustered = true;
      std::vector<double> sorted = mtimes;
      std::sort(sorted.begin(), sorted.end());
      p.clustered_span_s = sorted.back() - sorted.front();
    }
    // A clock that is off (no NTP, a restored RTC) or a copied file's time:
    // an mtime after now tells nothing of when writing stopped.
    constexpr int64_t kClockSlackS = 60;
    if (opts.now_unix_s > 0 && last > opts.now_unix_s + kClockSlackS)
      p.future_mtime_unix_s = last;
    else if (!p.mtimes_clustered)
      p.last_write_unix_s = last;
    if (!p.mtimes_clustered && !opts.rate_per_s) rate_from_mtimes(mtimes, p);
  }
  if (!r.range) return;
  p.samples_remaining = int64_t(r.resume_count + (r.not_started ? r.not_started->count() : 0));
  if (p.rate_samples_per_hour && *p.rate_samples_per_hour > 0)
    p.time_to_finish_s = double(*p.samples_remaining) / *p.rate_samples_per_hour * 3600.0;
  if (!p.mean_sample_bytes) return;
  p.bytes_needed = uint64_t(*p.mean_sample_bytes * double(*p.samples_remaining));
  p.capacity_short = p.free_bytes && *p.bytes_needed > *p.free_bytes;
}

}  // namespace gt
