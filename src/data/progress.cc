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

void rate_from_mtimes(const DirScan& scan, const std::vector<uint32_t>& good, int64_t last,
                      DataProgress& p) {
  int64_t first = INT64_MAX;
  for (uint32_t i : good) first = std::min(first, scan.files[i].mtime_unix_s);
  int64_t window_start = std::max(first, last - 3600);
  uint64_t in_window = std::count_if(good.begin(), good.end(), [&](uint32_t i) {
    return scan.files[i].mtime_unix_s >= window_start;
  });
  if (last > window_start && in_window >= 2) {
    p.rate_samples_per_hour = double(in_window - 1) * 3600.0 / double(last - window_start);
    p.rate_source = "mtimes";
  }
}

}  // namespace

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
    if (!p.mtimes_clustered) p.last_write_unix_s = last;
    if (!p.mtimes_clustered && !opts.rate_per_s) rate_from_mtimes(scan, good, last, p);
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
