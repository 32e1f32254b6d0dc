// A --kernel-log file saved compressed (dmesg.gz, kern.log.2.gz, an xz or
// zstd archive from a support bundle): recognised by its magic bytes, not
// its name, and inflated through the format's own library (zlib, liblzma,
// libzstd), so a compressed log is read or refused with the reason, never
// parsed as bytes that match nothing and reported clean.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gt::klog {

enum class Compression { kNone, kGzip, kXz, kZstd };

/// From the first bytes of a file: gzip 1f 8b, xz fd 37 7a 58 5a 00, zstd
/// 28 b5 2f fd (RFC 1952, the .xz file format, RFC 8878).
Compression compression_of(std::string_view head);

/// "gzip", "xz", "zstd" ("none").
const char* compression_name(Compression c);

/// What inflating gave: the text (at most the last `cap` bytes, from a line
/// start, as the plain reader keeps), or why it could not be read.
struct Inflated {
  std::string data;
  std::optional<std::string> error;
  bool cut = false;  ///< bytes were dropped to keep `cap` (the beginning, or all: `whole`)
};

/// Inflates `in` (every member or frame, one after the other, as gzip -d
/// and zstd -d do). A corrupt or truncated stream is an error naming the
/// format and `name`; what came before it is dropped (a half log is not
/// the log). `whole`: all of it or nothing, never a tail: past `cap` bytes
/// the inflating stops and `data` is empty, `cut` true (a gzip bomb costs
/// `cap` bytes of memory).
Inflated inflate_log(std::string_view in, Compression c, const std::string& name, size_t cap,
                     bool whole = false);

}  // namespace gt::klog
