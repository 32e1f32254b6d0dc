#include "data/analysis.h"

#include <algorithm>
#include <map>

#include "data/progress.h"

namespace gt {
namespace {

// One sample-named file: a few words, sorted by (group rank, index, file).
struct Keyed {
  uint32_t group = 0;  // rank of the group name (EAGLE workers; "" for global)
  int64_t index = 0;
  uint32_t file = 0;
};

// Group names ranked in sorted order, so runs come out sorted like SampleKey.
struct Groups {
  std::vector<std::string> names;
  std::map<std::string, uint32_t> ids;
  uint32_t id(const std::string& g) {
    auto [it, fresh] = ids.try_emplace(g, uint32_t(names.size()));
    if (fresh) names.push_back(g);
    return it->second;
  }
  // Renumbers ids by name order; returns old id -> rank.
  std::vector<uint32_t> rank() {
    std::vector<uint32_t> to(names.size());
    uint32_t r = 0;
    std::vector<std::string> sorted;
    for (auto& [name, id] : ids) {
      to[id] = r++;
      sorted.push_back(name);
    }
    names = std::move(sorted);
    return to;
  }
};

// Appends index to sorted runs, joining it to the last run when adjacent.
void append_index(std::vector<KeyRun>& runs, const std::string& group, int64_t index) {
  if (!runs.empty() && runs.back().group == group && runs.back().last != INT64_MAX &&
      index <= runs.back().last + 1) {
    runs.back().last = std::max(runs.back().last, index);
    return;
  }
  runs.push_back({group, index, index});
}

// Sorted runs merged, adjacent or overlapping ones joined.
std::vector<KeyRun> merge_runs(std::vector<KeyRun> runs) {
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

// Gaps below each group's highest index (from 0 for EAGLE's per-worker
// counts, from the lowest index, or the range's first, for global keys),
// and for a range the not-started part above the highest index. One pass
// over the sorted keys, whatever the width of the range.
void find_missing(const std::vector<Keyed>& keys, const Groups& groups,
                  const std::optional<std::pair<int64_t, int64_t>>& range, DataReport& r) {
  size_t i = 0;
  while (i < keys.size()) {
    const std::string& g = groups.names[keys[i].group];
    int64_t next = g.empty() ? (range ? range->first : keys[i].index) : 0;
    for (; i < keys.size() && groups.names[keys[i].group] == g; ++i) {
      if (keys[i].index > next) r.gaps.push_back({g, next, keys[i].index - 1});
      next = std::max(next, keys[i].index == INT64_MAX ? INT64_MAX : keys[i].index + 1);
    }
    if (g.empty() && range && next < range->second)
      r.not_started = KeyRun{"", next, range->second - 1};
  }
  bool any_global = !keys.empty() && groups.names[keys.front().group].empty();
  if (range && !any_global && range->second > range->first)
    r.not_started = KeyRun{"", range->first, range->second - 1};
  r.gap_count = run_keys(r.gaps);
  r.missing = r.gaps;
  if (r.not_started) r.missing.push_back(*r.not_started);
  r.missing = merge_runs(std::move(r.missing));
  r.missing_count = run_keys(r.missing);
}

std::string_view basename_view(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string_view(rel)
                                    : std::string_view(rel).substr(slash + 1);
}

bool is_stale(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return is_stale_temp(slash == std::string::npos ? std::string_view(rel)
                                                  : std::string_view(rel).substr(slash + 1));
}

// Duplicates, resume runs (bad and changed keys) and the good samples, from
// the sorted keys: equal neighbours are one sample.
void walk_samples(const std::vector<Keyed>& keys, const Groups& groups,
                  const std::vector<bool>& redo, DataReport& r, std::vector<uint32_t>& good) {
  std::vector<KeyRun> redo_runs;
  for (size_t i = 0; i < keys.size();) {
    size_t j = i;
    bool any_redo = false, all_ok = true;
    for (; j < keys.size() && keys[j].group == keys[i].group && keys[j].index == keys[i].index;
         ++j) {
      any_redo = any_redo || redo[keys[j].file];
      all_ok = all_ok && r.file(keys[j].file).intact();
    }
    const std::string& g = groups.names[keys[i].group];
    if (j - i > 1) {
      Duplicate d{SampleKey{g, keys[i].index}, {}};
      for (size_t k = i; k < j; ++k) d.paths.push_back(r.path(keys[k].file));
      r.duplicates.push_back(std::move(d));
    }
    if (any_redo) append_index(redo_runs, g, keys[i].index);
    if (all_ok && !any_redo) good.push_back(keys[i].file);
    i = j;
  }
  redo_runs.insert(redo_runs.end(), r.gaps.begin(), r.gaps.end());
  r.resume = merge_runs(std::move(redo_runs));
  r.resume_count = run_keys(r.resume);
}

// Bad files with a key in key order, then the others in path order.
std::vector<uint32_t> bad_in_key_order(const std::vector<Keyed>& keys,
                                       const std::vector<uint32_t>& bad, size_t files) {
  std::vector<bool> is_bad(files), keyed(files);
  for (uint32_t b : bad) is_bad[b] = true;
  std::vector<uint32_t> out;
  out.reserve(bad.size());
  for (const Keyed& k : keys) {
    keyed[k.file] = true;
    if (is_bad[k.file]) out.push_back(k.file);
  }
  for (uint32_t b : bad)
    if (!keyed[b]) out.push_back(b);
  return out;
}

}  // namespace

uint64_t run_keys(const std::vector<KeyRun>& runs) {
  uint64_t n = 0;
  for (const KeyRun& r : runs) n += r.count();
  return n;
}

std::string format_key_runs(const std::vector<KeyRun>& runs, size_t max_items) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (max_items && i == max_items) {
      out += ", ... (" + std::to_string(run_keys({runs.begin() + i, runs.end()})) + " more)";
      break;
    }
    const KeyRun& r = runs[i];
    out += (out.empty() ? "" : ", ") + r.key(r.first).text();
    if (r.last > r.first) out += "-" + std::to_string(r.last);
  }
  return out;
}

std::optional<SampleKey> DataReport::key(uint32_t i) const {
  std::optional<SampleKey> k = sample_key(layout, scan->files[i].rel);
  if (k && range && k->group.empty() && (k->index < range->first || k->index >= range->second))
    return std::nullopt;
  return k;
}

std::string DataReport::problem(uint32_t i) const {
  const ScannedFile& f = scan->files[i];
  return f.verdict == FileVerdict::kUnreadable ? "unreadable" : problem_code_name(f.code);
}

ExitCode data_exit_code(const DataReport& r) {
  if (!r.errors.empty() || !r.move_refused.empty()) return ExitCode::kCritical;
  for (uint32_t b : r.bad)
    if (r.file(b).verdict == FileVerdict::kUnreadable) return ExitCode::kCritical;
  bool manifest_bad = r.manifest && (!r.manifest->changed.empty() || !r.manifest->missing.empty());
  if (!r.bad.empty() || !r.unverifiable.empty() || !r.missing.empty() || !r.duplicates.empty() ||
      !r.stale.empty() || r.progress.capacity_short || manifest_bad ||
      !r.changed_during_scan.empty() || !r.writers.empty() || !r.being_written.empty())
    return ExitCode::kWarning;
  if (r.files == 0 && !r.range) return ExitCode::kUnknown;
  return ExitCode::kOk;
}

/// A folder that could not be listed may hold any of the samples not seen:
/// none is missing or to redo as far as anyone knows, and what remains of
/// the job is unknown too.
static void forget_what_unread_folders_hide(const DirScan& scan, DataReport& r) {
  r.unreadable_dirs = scan.unreadable_dirs;
  r.missing.clear();
  r.missing_count = 0;
  r.gaps.clear();
  r.gap_count = 0;
  r.not_started.reset();
  r.resume.clear();
  r.resume_count = 0;
  r.progress.samples_remaining.reset();
  r.progress.time_to_finish_s.reset();
  r.progress.bytes_needed.reset();
  r.progress.capacity_short = false;
}

DataReport analyze(const DirScan& scan, const AnalysisOptions& opts) {
  DataReport r;
  r.scan = &scan;
  r.layout = opts.layout;
  r.range = opts.range;
  r.errors = scan.errors;
  r.changed = opts.changed;
  std::vector<bool> redo(scan.files.size());
  for (uint32_t c : opts.changed) redo[c] = true;
  const SampleKeys sample_keys(scan, opts.layout);  // the scan's, when taken under this layout
  Groups groups;
  std::vector<Keyed> keys;
  for (uint32_t i = 0; i < scan.files.size(); ++i) {
    const ScannedFile& f = scan.files[i];
    if (is_marker_or_lock(basename_view(f.rel), f.size_bytes)) {
      ++r.markers;
      continue;
    }
    ++r.files;
    r.bytes += f.size_bytes;
    r.bytes_read += f.bytes_read;
    r.crc_checked += f.crc_checked;
    // A file being written changes by design, and a temporary name under a
    // live writer is not stale yet: neither is said of it.
    const bool writing = f.verdict == FileVerdict::kBeingWritten;
    if (f.changed && !writing) r.changed_during_scan.push_back(i);
    if (is_stale(f.rel) && !writing) {
      r.stale.push_back(scan.path(f));
      continue;
    }
    std::optional<SampleKey> key = sample_keys.key(f);
    if (key && opts.range && key->group.empty() &&
        (key->index < opts.range->first || key->index >= opts.range->second)) {
      ++r.outside_range;
      key.reset();
    }
    if (key) {
      keys.push_back({groups.id(key->group), key->index, i});
      ++r.samples;
    }
    if (writing) {
      r.being_written.push_back(i);
      continue;
    }
    if (f.verdict == FileVerdict::kBad || f.verdict == FileVerdict::kUnreadable) {
      r.bad.push_back(i);
      redo[i] = true;
    } else if (f.verdict == FileVerdict::kUnverifiable) {
      r.unverifiable.push_back(i);
    } else {
      ++(key ? r.ok : r.ok_other);
    }
  }
  std::vector<uint32_t> rank = groups.rank();
  for (Keyed& k : keys) k.group = rank[k.group];
  std::sort(keys.begin(), keys.end(), [](const Keyed& a, const Keyed& b) {
    return a.group != b.group   ? a.group < b.group
           : a.index != b.index ? a.index < b.index
                                : a.file < b.file;
  });
  find_missing(keys, groups, opts.range, r);
  std::vector<uint32_t> good;
  walk_samples(keys, groups, redo, r, good);
  r.bad = bad_in_key_order(keys, r.bad, scan.files.size());
  std::vector<Keyed>().swap(keys);
  compute_progress(scan, good, opts, r);
  if (!scan.unreadable_dirs.empty()) forget_what_unread_folders_hide(scan, r);
  r.exit_code = data_exit_code(r);
  return r;
}

}  // namespace gt
