// The deep pass: every byte of a file read once, in order, with a large
// buffer, and handed to the consumers that the format verifiers (and the
// manifest hasher) registered. One pass serves all of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"

namespace gt {

class StreamConsumer {
 public:
  virtual ~StreamConsumer() = default;
  /// Receives bytes [offset, offset+n) of the file; offsets only increase.
  virtual void feed(uint64_t offset, const uint8_t* p, size_t n) = 0;
  /// Called once after the last byte; appends what it found to `check`.
  virtual void finish(FileCheck& check) = 0;
};

/// Size of the per-thread read buffer of the deep pass (a multiple of 4 KiB,
/// so that 4 KiB blocks are aligned in every chunk).
constexpr size_t kStreamBufferBytes = 1 << 20;

/// Reads the whole source through `buffer` and feeds each consumer; then
/// calls finish(). False (check.io_error set) on an I/O error.
bool stream_source(const ByteSource& src, std::vector<uint8_t>& buffer,
                   const std::vector<StreamConsumer*>& consumers, FileCheck& check);

/// CRC-32 (zlib/gzip polynomial) continued from `crc`; ISA-L's folding
/// implementation with carry-less multiply.
uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n);

/// Finds 4 KiB blocks (aligned to the file) that are entirely zero inside
/// ranges of tensor data, where real activations never have them.
class ZeroBlockScanner : public StreamConsumer {
 public:
  struct Range {
    uint64_t begin, end;
    std::string label;  ///< "record data/3", "tensor hidden", "array data"
  };
  explicit ZeroBlockScanner(std::vector<Range> ranges);
  void feed(uint64_t offset, const uint8_t* p, size_t n) override;
  void finish(FileCheck& check) override;
  /// First zero block found in range `i`, if any.
  std::optional<uint64_t> first_zero_block(size_t i) const { return hits_[i].first; }
  uint64_t zero_blocks(size_t i) const { return hits_[i].count; }
  /// When false, finish() reports nothing (the zip verifier reports zero
  /// blocks only inside records whose CRC failed).
  bool report = true;

 private:
  struct Hit {
    std::optional<uint64_t> first;
    uint64_t count = 0;
  };
  std::vector<Range> ranges_;
  std::vector<Hit> hits_;
  bool in_order_ = true;  // ranges sorted and disjoint: feed() walks from first_
  size_t first_ = 0;
};

/// "0x1234ABCD".
std::string hex32(uint32_t v);

}  // namespace gt
