// From verified files to the answer: which samples are intact, missing,
// duplicated or bad, what must be redone, and how far the job got.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/layouts.h"
#include "data/manifest.h"
#include "data/problem.h"
#include "data/scan.h"
#include "data/value_report.h"
#include "model/exit_code.h"

namespace gt {

/// Consecutive indices [first, last] of one group: missing and resume sets
/// are runs, so `--expect 4000000000` costs one run, not four billion keys.
struct KeyRun {
  std::string group;
  int64_t first = 0, last = 0;
  uint64_t count() const { return uint64_t(last) - uint64_t(first) + 1; }
  SampleKey key(int64_t index) const { return SampleKey{group, index}; }
  auto operator<=>(const KeyRun&) const = default;
};

/// The most samples `--expect`/`--range` may name, and the most indices that
/// the JSON `missing`/`resume` lists and `--resume-list` write one by one;
/// counts and runs are always complete.
constexpr uint64_t kMaxSamples = 100'000'000;
/// The JSON `missing` and `resume` arrays list at most this many indices.
constexpr uint64_t kMaxListedIndices = 1'000'000;

/// Total number of keys in `runs`.
uint64_t run_keys(const std::vector<KeyRun>& runs);

/// "3, 5, 7-9, 12": the runs, at most `max_items` of them (0 = all).
std::string format_key_runs(const std::vector<KeyRun>& runs, size_t max_items = 0);

/// Calls `f(key)` for each key of `runs` in order, at most `limit` times.
template <typename F>
void for_each_key(const std::vector<KeyRun>& runs, uint64_t limit, F&& f) {
  for (const KeyRun& r : runs)
    for (int64_t i = r.first;; ++i) {
      if (limit-- == 0) return;
      f(r.key(i));
      if (i == r.last) break;
    }
}

struct Duplicate {
  SampleKey key;
  std::vector<std::string> paths;
};

/// Write progress and capacity, from file times and sizes. Every field is
/// nullopt when its inputs are unknown.
struct DataProgress {
  uint64_t samples_done = 0;                 ///< intact, distinct samples
  std::optional<int64_t> last_write_unix_s;  ///< newest sample mtime: when writing stopped
  /// The newest sample's mtime when it is over a minute after now: the
  /// file's time or this machine's clock is off, so it says nothing of when
  /// writing stopped (last_write_unix_s is null then).
  std::optional<int64_t> future_mtime_unix_s;
  std::optional<double> rate_samples_per_hour;  ///< over the last hour of writing, or --rate
  std::string rate_source;                      ///< "mtimes", "--rate", or "" when unknown
  /// Most mtimes within seconds and their order unrelated to the index: a
  /// copy or restore set them, so they say nothing of the job's rate.
  bool mtimes_clustered = false;
  std::optional<double> clustered_span_s;    ///< the central 90% of mtimes span this long
  std::optional<int64_t> samples_remaining;  ///< needs --expect or --range
  std::optional<double> time_to_finish_s;
  std::optional<double> mean_sample_bytes;
  std::optional<uint64_t> bytes_needed;
  std::optional<uint64_t> free_bytes;  ///< of the first DIR's filesystem
  bool capacity_short = false;         ///< remaining samples do not fit
};

struct DataReport {
  const DirScan* scan = nullptr;  ///< the files that bad/unverifiable/changed index into
  std::vector<std::string> dirs;
  bool deep = false;
  LayoutSpec layout;
  std::optional<std::pair<int64_t, int64_t>> range;  ///< [first, last+1) from --expect/--range
  /// ok: intact samples; ok_other: intact files that are no sample (a
  /// progress.json), counted apart.
  uint64_t files = 0, ok = 0, ok_other = 0, samples = 0, bytes = 0, bytes_read = 0;
  uint64_t markers = 0;       ///< lock files and zero-byte markers: not counted in `files`
  uint64_t crc_checked = 0;   ///< files read whole with every CRC checked (deep, or recent)
  std::vector<uint32_t> bad;  ///< scan file indices, sorted by key then path
  std::vector<uint32_t> unverifiable;  ///< scan file indices
  /// Scan file indices a live process has open for writing: neither intact
  /// nor bad, not in the resume set (their writer is not done).
  std::vector<uint32_t> being_written;
  std::vector<KeyRun> missing;  ///< gaps + not started: sorted, disjoint, not adjacent
  uint64_t missing_count = 0;
  std::vector<KeyRun> gaps;  ///< missing below the highest index seen (per group)
  uint64_t gap_count = 0;
  std::optional<KeyRun> not_started;  ///< missing above the highest index, to the range's end
  std::vector<Duplicate> duplicates;
  std::vector<std::string> stale;
  uint64_t outside_range = 0;     ///< samples whose index is outside --range
  std::vector<uint32_t> changed;  ///< scan file indices: differ from the manifest
  std::vector<KeyRun> resume;     ///< must be redone: gaps + bad + changed (not the not-started)
  uint64_t resume_count = 0;
  std::vector<uint32_t> changed_during_scan;  ///< scan file indices
  std::vector<std::string> writers;           ///< processes with files under DIR open for writing
  /// Whose open files could not be checked (unseen_writers_words); "" when
  /// every process's were: a writer cannot be ruled out, so nothing is
  /// moved and writing is not said to have stopped.
  std::string writers_unknown;
  std::vector<std::string> errors;  ///< directories or files that could not be read
  /// Folders under DIR that could not be listed (permission, I/O): what
  /// they hold is unknown, so `missing`, `gaps`, `not_started` and `resume`
  /// are left empty and said unknown, never counted.
  std::vector<std::string> unreadable_dirs;
  DataProgress progress;
  std::optional<ManifestDiff> manifest;
  std::optional<ValueTotals> values;                       ///< --values
  std::vector<std::pair<std::string, std::string>> moved;  ///< --move-bad-to: from, to
  /// --move-bad-to refused as a whole (a process writes under DIR): why.
  std::string move_refused;
  std::vector<std::string> how_to_resume;  ///< the layout's resume paragraph (resume_advice.h)
  std::string stale_advice;                ///< what to do with stale temporary files

  double elapsed_s = 0;
  ExitCode exit_code = ExitCode::kOk;

  const ScannedFile& file(uint32_t i) const { return scan->files[i]; }
  std::string path(uint32_t i) const { return scan->path(scan->files[i]); }
  std::optional<SampleKey> key(uint32_t i) const;
  /// The first problem's code word, or "unreadable".
  std::string problem(uint32_t i) const;
  const std::string& message(uint32_t i) const { return scan->message(scan->files[i]); }
};

struct AnalysisOptions {
  LayoutSpec layout;
  std::optional<std::pair<int64_t, int64_t>> range;
  int64_t now_unix_s = 0;
  std::optional<uint64_t> free_bytes;
  std::optional<double> rate_per_s;  ///< --rate: the operator's figure wins over mtimes
  std::vector<uint32_t> changed;     ///< scan file indices that differ from a manifest
};

/// Classifies the scanned files (layout already chosen), finds missing and
/// duplicate indices, the resume set and the progress figures; sets the exit
/// code (0 intact, 1 resumable problems or unverifiable files, 2 unreadable
/// files or directories, 3 nothing to check). Time and memory grow with the
/// number of files, never with the width of the range; the report refers to
/// `scan`'s files by index, so `scan` must outlive it.
DataReport analyze(const DirScan& scan, const AnalysisOptions& opts);

/// Re-derives the exit code after the manifest comparison or moves.
ExitCode data_exit_code(const DataReport& r);

}  // namespace gt
