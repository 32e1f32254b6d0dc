#include "data/analysis.h"

#include <algorithm>
#include <map>
#include <set>

namespace gt {
namespace {

// Where a group's gaps start without a range: 0 for EAGLE's per-worker
// counts, the lowest index seen for global keys.
int64_t group_start(const SampleKey& k) { return k.group.empty() ? k.index : 0; }

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

// Gaps as runs: within the range, or per group between 0 (min for global
// keys without a range) and the highest index seen. One pass over the seen
// keys, whatever the width of the range.
std::vector<KeyRun> find_missing(const std::set<SampleKey>& seen,
                                 const std::optional<std::pair<int64_t, int64_t>>& range) {
  std::map<std::string, std::pair<int64_t, int64_t>> spans;  // group -> [lo, hi]
  for (const SampleKey& k : seen) {
    auto [it, fresh] = spans.try_emplace(k.group, group_start(k), k.index);
    it->second.second = std::max(it->second.second, k.index);
  }
  if (range) {
    if (range->second > range->first)
      spans[""] = {range->first, range->second - 1};
    else
      spans.erase("");
  }
  std::vector<KeyRun> out;
  for (const auto& [group, span] : spans) {
    int64_t next = span.first;  // the lowest index not yet accounted for
    bool done = false;
    for (auto it = seen.lower_bound(SampleKey{group, span.first});
         it != seen.end() && it->group == group && it->index <= span.second; ++it) {
      if (it->index > next) out.push_back({group, next, it->index - 1});
      if (it->index == span.second)
        done = true;
      else
        next = it->index + 1;
    }
    if (!done && next <= span.second) out.push_back({group, next, span.second});
  }
  return out;
}

// Missing runs and bad keys merged into sorted runs, adjacent ones joined.
std::vector<KeyRun> merge_runs(std::vector<KeyRun> runs, const std::set<SampleKey>& keys) {
  for (const SampleKey& k : keys) runs.push_back({k.group, k.index, k.index});
  std::sort(runs.begin(), runs.end());
  std::vector<KeyRun> out;
  for (const KeyRun& r : runs) {
    if (!out.empty() && out.back().group == r.group &&
        (out.back().last == INT64_MAX || r.first <= out.back().last + 1)) {
      out.back().last = std::max(out.back().last, r.last);
      continue;
    }
    out.push_back(r);
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
  p.samples_remaining = int64_t(r.resume_count);  // missing + bad, within the range
  if (p.rate_samples_per_hour && *p.rate_samples_per_hour > 0)
    p.time_to_finish_s = double(*p.samples_remaining) / *p.rate_samples_per_hour * 3600.0;
  p.bytes_needed = uint64_t(*p.mean_sample_bytes * double(*p.samples_remaining));
  p.capacity_short = p.free_bytes && *p.bytes_needed > *p.free_bytes;
}

}  // namespace

uint64_t run_keys(const std::vector<KeyRun>& runs) {
  uint64_t n = 0;
  for (const KeyRun& r : runs) n += r.count();
  return n;
}

ExitCode data_exit_code(const DataReport& r) {
  if (!r.errors.empty()) return ExitCode::kCritical;
  for (const BadFile& b : r.bad)
    if (b.problem == "unreadable") return ExitCode::kCritical;
  bool manifest_bad = r.manifest && (!r.manifest->changed.empty() || !r.manifest->missing.empty());
  if (!r.bad.empty() || !r.unverifiable.empty() || !r.missing.empty() || !r.duplicates.empty() ||
      !r.stale.empty() || r.progress.capacity_short || manifest_bad)
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
  std::set<SampleKey> bad_keys, unverified_keys;
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
    } else if (f.check.unverifiable) {
      r.unverifiable.push_back({f.path, key, *f.check.unverifiable});
      if (key) unverified_keys.insert(*key);
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
    if (!bad_keys.count(key) && !unverified_keys.count(key)) good.push_back(files.front());
  }
  r.missing = find_missing(seen, opts.range);
  r.missing_count = run_keys(r.missing);
  r.resume = merge_runs(r.missing, bad_keys);
  r.resume_count = run_keys(r.resume);
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
