// Problems a data file can have: a small catalogue with stable codes that are
// a public interface (JSON, docs/data.md, tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gt {

enum class ProblemCode {
  kEmpty,         ///< 0 bytes
  kTruncated,     ///< ends before its own structure says it should
  kZeroFilled,    ///< zeros where a signature or data must be
  kChecksum,      ///< a stored CRC32 (zip record, gzip trailer) does not match
  kMalformed,     ///< a header or record that cannot be parsed
  kSizeMismatch,  ///< sizes that disagree (records do not tile the file, storage != numel*itemsize)
  kNonFinite,     ///< --values: NaN or +-Inf in float tensor data (unless --allow-non-finite)
  kNotRegular,    ///< a sample's path that is a directory, link, FIFO...: never read
};

/// Returns the stable code word ("empty", "truncated", "zero-filled", ...,
/// "not-regular").
const char* problem_code_name(ProblemCode code);

struct Problem {
  ProblemCode code;
  std::string message;  ///< says exactly what and where ("truncated at byte N of M")
};

/// What --values counted in one file's float32/float16/bfloat16 tensors
/// (torch storages, safetensors tensors, .npy arrays, .npz members). A torch
/// storage shared by several tensors counts once.
struct ValueSummary {
  uint64_t tensors = 0;  ///< float tensors (storages, arrays) whose values were counted
  uint64_t elements = 0;
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  uint64_t zero_tensors = 0;                   ///< counted tensors whose every value is +0 or -0
  std::vector<std::string> zero_tensor_names;  ///< the first few of them
  uint64_t uncounted_tensors = 0;              ///< tensors of other dtypes (ints, float64, fp8...)
  std::vector<std::string> uncounted_dtypes;   ///< their dtypes, each once
  uint64_t non_finite() const { return nan + pos_inf + neg_inf; }
  /// Every counted value in the file is zero (information, not a problem).
  bool all_zero() const { return tensors > 0 && zero_tensors == tensors; }
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
  std::optional<uint64_t> size_bytes;  ///< from the file's stat
  std::optional<int64_t> mtime_unix_s;
  uint32_t mtime_nsec = 0;
  bool changed_while_read = false;     ///< size or mtime differ after the check from the stat
  bool deep_checked = false;           ///< every byte read and every CRC checked
  std::optional<ValueSummary> values;  ///< --values, for the formats whose values are decoded

  bool intact() const { return problems.empty() && !io_error && !unverifiable; }
};

/// Adds a problem to a file's check (every format verifier reports this way).
inline void add_problem(FileCheck& check, ProblemCode code, std::string message) {
  check.problems.push_back({code, std::move(message)});
}

/// Records why a file could not be fully verified (the first reason is kept).
void note_unverifiable(FileCheck& check, std::string reason);

}  // namespace gt
