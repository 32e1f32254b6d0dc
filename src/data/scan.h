// Walking the data directories and verifying every file in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/manifest.h"
#include "data/problem.h"
#include "util/result.h"

namespace gt {

struct ScannedFile {
  std::string path;  ///< DIR joined with rel, as printed and written to manifests
  std::string rel;   ///< relative to its DIR
  size_t dir_index = 0;
  uint64_t size_bytes = 0;
  int64_t mtime_unix_s = 0;
  FileCheck check;
  std::optional<std::string> digest;  ///< with a manifest to write or verify
};

struct ScanOptions {
  std::vector<std::string> dirs;
  bool deep = false;
  std::optional<HashAlgo> hash;  ///< digest every file (forces a full read)
  unsigned threads = 0;          ///< 0: the number of cores, at most 16
};

/// Counters a progress line reads while the scan runs.
struct ScanProgress {
  std::atomic<uint64_t> files_total{0}, files_done{0}, bytes_done{0};
};

struct DirScan {
  std::vector<ScannedFile> files;   ///< sorted by dir, then path
  std::vector<std::string> errors;  ///< subdirectories that could not be read
};

/// Lists the regular files under each DIR (symbolic links are not
/// followed), then verifies them on a pool of threads with one read buffer
/// each: memory is bounded by threads x 1 MiB plus the list of files. Fails
/// only when a DIR itself cannot be opened.
Result<DirScan> scan_dirs(const ScanOptions& opts, ScanProgress* progress = nullptr);

}  // namespace gt
