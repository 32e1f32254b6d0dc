#include "data/analysis.h"

#include <algorithm>
#include <map>
#include <set>

namespace gt {
namespace {

BadFile bad_file(const ScannedFile& f, std::optional<SampleKey> key) {
  BadFile b{f.path, std::move(key), "", "", f.check.problems};
  if (f.check.io_error) {
    b.problem = "unreadable";
    b.message = *f.check.io_error;
  } else {
    b.problem = problem_code_name(f.check.problems.front().code);
    b.message = f.check.problems.front().message;
  }
  return b;
}

// Gaps: within the range, or per group between 0 (min for global keys
// without a range) and the highest index seen.
std::vector<SampleKey> find_missing(const std::set<SampleKey>& seen,
                                    const std::optional<std::pair<int64_t, int64_t>>& range) {
  std::map<std::string, std::pair<int64_t, int64_t>> spans;  // group -> [lo, hi]
  for (const SampleKey& k : seen) {
    auto [it, fresh] = spans.try_emplace(k.group, k.index, k.index);
    it->second.first = std::min(it->second.first, k.index);
    it->second.second = std::max(it->second.second, k.index);
  }
  if (range) spans[""] = {range->first, range->second - 1};
  std::vector<SampleKey> out;
  for (auto& [group, span] : spans) {
    int64_t lo = group.empty() ? span.first : 0;  // EAGLE counts each worker from 0
    for (int64_t i = lo; i <= span.second; ++i)
      if (!seen.count(SampleKey{group, i})) out.push_back({group, i});
  }
  return out;
}

void compute_progress(const std::vector<const ScannedFile*>& good, const AnalysisOptions& opts,
                      const DataReport& r, DataProgress& p) {
  p.samples_done = good.size();
  p.free_bytes = opts.free_bytes;
  if (good.empty()) return;
  int64_t last = 0, first = INT64_MAX;
  uint64_t bytes = 0;
  for (const ScannedFile* f : good) {
    last = std::max(last, f->mtime_unix_s);
    first = std::min(first, f->mtime_unix_s);
    bytes += f->size_bytes;
  }
  p.last_write_unix_s = last;
  p.mean_sample_bytes = double(bytes) / double(good.size());
  int64_t window_start = std::max(first, last - 3600);
  uint64_t in_window = std::count_if(good.begin(), good.end(), [&](const ScannedFile* f) {
    return f->mtime_unix_s >= window_start;
  });
  if (last > window_start && in_window >= 2)
    p.rate_samples_per_hour = double(in_window - 1) * 3600.0 / double(last - window_start);
  if (!r.range) return;
  p.samples_remaining = int64_t(r.resume.size());  // missing + bad, within the range
  if (p.rate_samples_per_hour && *p.rate_samples_per_hour > 0)
    p.time_to_finish_s = double(*p.samples_remaining) / *p.rate_samples_per_hour * 3600.0;
  p.bytes_needed = uint64_t(*p.mean_sample_bytes * double(*p.samples_remaining));
  p.capacity_short = p.free_bytes && *p.bytes_needed > *p.free_bytes;
}

}  // namespace

ExitCode data_exit_code(const DataReport& r) {
  if (!r.errors.empty()) return ExitCode::kCritical;
  for (const BadFile& b : r.bad)
    if (b.problem == "unreadable") return ExitCode::kCritical;
  bool manifest_bad = r.manifest && (!r.manifest->changed.empty() || !r.manifest->missing.empty());
  if (!r.bad.empty() || !r.missing.empty() || !r.duplicates.empty() || !r.stale.empty() ||
      r.progress.capacity_short || manifest_bad)
    return ExitCode::kWarning;
  if (r.files == 0 && !r.range) return ExitCode::kUnknown;
  return ExitCode::kOk;
}

DataReport analyze(const DirScan& scan, const AnalysisOptions& opts) {
  DataReport r;
  r.layout = opts.layout;
  r.range = opts.range;
  r.errors = scan.errors;
  std::map<SampleKey, std::vector<const ScannedFile*>> by_key;
  std::set<SampleKey> bad_keys;
  for (const ScannedFile& f : scan.files) {
    ++r.files;
    r.bytes += f.size_bytes;
    r.bytes_read += f.check.bytes_read;
    size_t slash = f.rel.rfind('/');
    if (is_stale_temp(slash == std::string::npos ? f.rel : f.rel.substr(slash + 1))) {
      r.stale.push_back(f.path);
      continue;
    }
    std::optional<SampleKey> key = sample_key(opts.layout, f.rel);
    if (key && opts.range && key->group.empty() &&
        (key->index < opts.range->first || key->index >= opts.range->second)) {
      ++r.outside_range;
      key.reset();
    }
    if (key) by_key[*key].push_back(&f);
    if (key) ++r.samples;
    if (!f.check.problems.empty() || f.check.io_error) {
      r.bad.push_back(bad_file(f, key));
      if (key) bad_keys.insert(*key);
    } else {
      ++r.ok;
    }
  }
  std::set<SampleKey> seen;
  std::vector<const ScannedFile*> good;
  for (const auto& [key, files] : by_key) {
    seen.insert(key);
    if (files.size() > 1) {
      Duplicate d{key, {}};
      for (const ScannedFile* f : files) d.paths.push_back(f->path);
      r.duplicates.push_back(std::move(d));
    }
    if (!bad_keys.count(key)) good.push_back(files.front());
  }
  r.missing = find_missing(seen, opts.range);
  std::set<SampleKey> resume(bad_keys.begin(), bad_keys.end());
  resume.insert(r.missing.begin(), r.missing.end());
  r.resume.assign(resume.begin(), resume.end());
  std::sort(r.bad.begin(), r.bad.end(), [](const BadFile& a, const BadFile& b) {
    if (a.key.has_value() != b.key.has_value()) return a.key.has_value();
    if (a.key && *a.key != *b.key) return *a.key < *b.key;
    return a.path < b.path;
  });
  compute_progress(good, opts, r, r.progress);
  r.exit_code = data_exit_code(r);
  return r;
}

}  // namespace gt
