// Walking the data directories and verifying every file in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/layouts.h"
#include "data/manifest.h"
#include "data/problem.h"
#include "data/recent_window.h"
#include "util/result.h"

namespace gt {

/// What verifying a file concluded.
/// kBeingWritten: a live process has it open for writing (neither intact
/// nor bad: its writer is not done with it).
enum class FileVerdict : uint8_t { kIntact, kBad, kUnreadable, kUnverifiable, kBeingWritten };

/// The rare per-file details, allocated only when present: problems after
/// the first, --values counts, a manifest digest.
struct FileExtra {
  std::vector<Problem> more_problems;
  std::optional<ValueSummary> values;
  std::optional<std::string> digest;
};

/// One file as the scan keeps it: a few words and its relative path, so a
/// million files, intact or bad, cost about 100 bytes each. Messages are
/// interned in DirScan::texts (a million "0 bytes" are one string).
struct ScannedFile {
  std::string rel;  ///< relative to its DIR
  uint64_t size_bytes = 0;
  int64_t mtime_unix_s = 0;
  uint64_t bytes_read = 0;
  /// sample_index under DirScan::indexed_under (kNoSample: no sample's
  /// name), taken once, on the scan's threads.
  int64_t sample_index = kNoSample;
  uint32_t mtime_nsec = 0;
  uint32_t dir_index = 0;
  uint32_t message =
      0;  ///< texts id: first problem's message, I/O error, unverifiable reason, writer
  FileVerdict verdict = FileVerdict::kIntact;
  ProblemCode code = ProblemCode::kMalformed;  ///< the first problem, when kBad
  bool crc_checked = false;  ///< every byte read (deep mode, or recent in quick mode)
  bool changed = false;      ///< size or mtime changed while the scan read it
  std::unique_ptr<FileExtra> extra;

  bool intact() const { return verdict == FileVerdict::kIntact; }
  const std::optional<std::string>* digest() const { return extra ? &extra->digest : nullptr; }
};

/// Distinct strings, each stored once; ids are stable. Thread-safe.
class TextPool {
 public:
  TextPool() { intern(""); }
  uint32_t intern(std::string_view text);
  const std::string& at(uint32_t id) const { return texts_[id]; }

 private:
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
  std::deque<std::string> texts_;  // a deque: the views in ids_ stay valid
  std::unordered_map<std::string_view, uint32_t> ids_;
};

struct ScanOptions {
  std::vector<std::string> dirs;
  bool deep = false;
  std::optional<HashAlgo> hash;   ///< digest every file (forces a full read)
  unsigned threads = 0;           ///< 0: the number of cores, at most 16
  bool values = false;            ///< --values (implies deep)
  bool allow_non_finite = false;  ///< --allow-non-finite
  /// Quick mode: files whose mtime is within this many seconds before a
  /// time writing stopped (RecentCheck::anchors) get the deep check too (the
  /// files a crash puts at risk); 0 turns it off.
  int64_t recent_window_s = 15 * 60;
  /// The layout asked for: its samples anchor the window (kAuto: detected).
  Layout layout = Layout::kAuto;
  /// When the node crashed, if the incident timeline knows it: one more anchor.
  std::optional<int64_t> crash_unix_s;
};

/// Counters a progress line reads while the scan runs.
struct ScanProgress {
  std::atomic<uint64_t> files_total{0}, files_done{0}, bytes_done{0};
};

struct DirScan {
  std::vector<std::string> dirs;
  LayoutSpec layout;  ///< ScanOptions::layout, detected from the names
  /// The layout each file's sample_index was taken under (scan_dirs: the
  /// layout); nullopt: not taken.
  std::optional<LayoutSpec> indexed_under;
  std::vector<ScannedFile> files;   ///< sorted by dir, then path
  std::vector<std::string> errors;  ///< subdirectories that could not be read
  /// The folders among them that could not be listed: the samples they
  /// hold are unknown, so nothing can be said missing or to redo.
  std::vector<std::string> unreadable_dirs;
  std::optional<RecentCheck> recent;  ///< quick mode only
  TextPool texts;

  /// DIR joined with rel, as printed.
  std::string path(const ScannedFile& f) const;
  const std::string& message(const ScannedFile& f) const { return texts.at(f.message); }
  /// Every problem of a bad file, the first one first.
  std::vector<Problem> problems(const ScannedFile& f) const;
  /// Stores one file's check compactly (the FileCheck is consumed).
  void record(ScannedFile& f, FileCheck&& check);
};

/// The scan's files' sample keys under `layout`: the index the scan took
/// when it took it under that layout (asked once, not per file), else (a
/// DirScan made otherwise, another layout) parsed from the name now.
class SampleKeys {
 public:
  SampleKeys(const DirScan& scan, const LayoutSpec& layout)
      : layout_(layout), taken_(scan.indexed_under == layout) {}
  int64_t index(const ScannedFile& f) const {
    return taken_ ? f.sample_index : sample_index(layout_, f.rel);
  }
  std::optional<SampleKey> key(const ScannedFile& f) const {
    const int64_t i = index(f);
    if (i == kNoSample) return std::nullopt;
    return SampleKey{std::string(sample_group(layout_, f.rel)), i};
  }

 private:
  const LayoutSpec& layout_;
  bool taken_;
};

/// Lists the regular files under each DIR, and any other entry named as a
/// sample (a directory, link or FIFO: bad, never opened; links are not
/// followed, so a link loop cannot trap it), then verifies them on a pool of
/// threads with one read buffer each: memory is bounded by threads x 1 MiB
/// plus the list of files. In quick mode the files written in the last
/// `recent_window_s` before each time writing stopped (the newest sample,
/// the last pauses of writing, the crash: never a file that is no sample)
/// are then deep-checked. Fails
/// only when a DIR itself cannot be opened.
Result<DirScan> scan_dirs(const ScanOptions& opts, ScanProgress* progress = nullptr);

}  // namespace gt
