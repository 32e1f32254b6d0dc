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
#include "model/exit_code.h"

namespace gt {

struct BadFile {
  std::string path;
  std::optional<SampleKey> key;  ///< nullopt for a file that is not a sample
  std::string problem;           ///< the first problem's code, or "unreadable"
  std::string message;
  std::vector<Problem> problems;
};

struct Duplicate {
  SampleKey key;
  std::vector<std::string> paths;
};

/// Write progress and capacity, from file times and sizes. Every field is
/// nullopt when its inputs are unknown.
struct DataProgress {
  uint64_t samples_done = 0;                    ///< intact, distinct samples
  std::optional<int64_t> last_write_unix_s;     ///< newest sample mtime: when writing stopped
  std::optional<double> rate_samples_per_hour;  ///< over the last hour of writing
  std::optional<int64_t> samples_remaining;     ///< needs --expect or --range
  std::optional<double> time_to_finish_s;
  std::optional<double> mean_sample_bytes;
  std::optional<uint64_t> bytes_needed;
  std::optional<uint64_t> free_bytes;  ///< of the first DIR's filesystem
  bool capacity_short = false;         ///< remaining samples do not fit
};

struct DataReport {
  std::vector<std::string> dirs;
  bool deep = false;
  LayoutSpec layout;
  std::optional<std::pair<int64_t, int64_t>> range;  ///< [first, last+1) from --expect/--range
  uint64_t files = 0, ok = 0, samples = 0, bytes = 0, bytes_read = 0;
  std::vector<BadFile> bad;
  std::vector<SampleKey> missing;
  std::vector<Duplicate> duplicates;
  std::vector<std::string> stale;
  uint64_t outside_range = 0;       ///< samples whose index is outside --range
  std::vector<SampleKey> resume;    ///< missing + bad, sorted, distinct
  std::vector<std::string> errors;  ///< directories or files that could not be read
  DataProgress progress;
  std::optional<ManifestDiff> manifest;
  std::vector<std::pair<std::string, std::string>> moved;  ///< --move-bad-to: from, to
  double elapsed_s = 0;
  ExitCode exit_code = ExitCode::kOk;
};

struct AnalysisOptions {
  LayoutSpec layout;
  std::optional<std::pair<int64_t, int64_t>> range;
  int64_t now_unix_s = 0;
  std::optional<uint64_t> free_bytes;
};

/// Classifies the scanned files (layout already chosen), finds missing and
/// duplicate indices, the resume set and the progress figures; sets the exit
/// code (0 intact, 1 resumable problems, 2 unreadable files or directories,
/// 3 nothing to check).
DataReport analyze(const DirScan& scan, const AnalysisOptions& opts);

/// Re-derives the exit code after the manifest comparison or moves.
ExitCode data_exit_code(const DataReport& r);

}  // namespace gt
