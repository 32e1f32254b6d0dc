// Problems a data file can have: a small catalogue with stable codes that are
// a public interface (JSON, docs/data.md, tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gt {

enum class ProblemCode {
  kEmpty,         ///< 0 bytes
  kTruncated,     ///< ends before its own structure says it should
  kZeroFilled,    ///< zeros where a signature or data must be
  kChecksum,      ///< a stored CRC32 (zip record, gzip trailer) does not match
  kMalformed,     ///< a header or record that cannot be parsed
  kSizeMismatch,  ///< sizes that disagree (records do not tile the file, storage != numel*itemsize)
};

/// Returns the stable code word ("empty", "truncated", "zero-filled", ...).
const char* problem_code_name(ProblemCode code);

struct Problem {
  ProblemCode code;
  std::string message;  ///< says exactly what and where ("truncated at byte N of M")
};

/// What verifying one file found. Intact means no problem, no I/O error and
/// nothing left unverified (intact() below).
struct FileCheck {
  std::string format;                   ///< "torch-zip", "npz", "gzip", "npy", ... (format_name())
  std::vector<Problem> problems;        ///< the first one is the most specific
  std::optional<std::string> io_error;  ///< set when the file could not be read at all
  /// Set when a check could not be computed (an unmodelled pickle opcode, an
  /// object array, a dtype of unknown size): says what and why. Such a file
  /// is never called intact, nor bad when no problem was found.
  std::optional<std::string> unverifiable;
  uint64_t bytes_read = 0;
  std::optional<uint64_t> size_bytes;  ///< from fstat of the opened file
  std::optional<int64_t> mtime_unix_s;

  bool intact() const { return problems.empty() && !io_error && !unverifiable; }
};

/// Records why a file could not be fully verified (the first reason is kept).
void note_unverifiable(FileCheck& check, std::string reason);

}  // namespace gt
