// verify_source(): sniff the format, run its quick checks, then (deep mode,
// or when a manifest digest is wanted) one sequential pass over the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

/// Files up to this size are read whole in one system call (FileSource's
/// prefetch): a deep check of one costs no read more than the quick check.
constexpr size_t kReadWholeBytes = 64 << 10;

struct VerifyOptions {
  bool deep = false;
  /// Count NaN, +-Inf and all-zero float tensors (implies deep).
  bool values = false;
  /// With values: NaN and Inf are counted but are no `non-finite` problem.
  bool allow_non_finite = false;
  /// Not deep: when the quick check finds no problem and no I/O error, the
  /// deep check follows (quick mode's recent files; FileCheck::deep_checked
  /// says whether it did). Not with `extra` consumers.
  bool then_deep = false;
};

/// Verifies one file. `name` is its file name (only used to decide whether a
/// signature was expected). `extra` consumers (a manifest hasher) force a
/// full pass and see every byte. `buffer` is the caller's reusable read
/// buffer. Never throws; an unreadable file sets io_error.
FileCheck verify_source(const ByteSource& src, std::string_view name, const VerifyOptions& opts,
                        std::vector<uint8_t>& buffer,
                        const std::vector<StreamConsumer*>& extra = {});

/// Opens `path` read-only and verifies it.
FileCheck verify_path(const std::string& path, const VerifyOptions& opts,
                      std::vector<uint8_t>& buffer, const std::vector<StreamConsumer*>& extra = {});

/// As verify_path, for a file FileSource::open_at opened; `path` (the same
/// file) names it in messages.
FileCheck verify_file(std::unique_ptr<FileSource> file, const std::string& path,
                      const VerifyOptions& opts, std::vector<uint8_t>& buffer,
                      const std::vector<StreamConsumer*>& extra = {});

}  // namespace gt
