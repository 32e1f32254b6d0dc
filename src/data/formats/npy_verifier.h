// NumPy .npy: header parse and size checks (also used for .npz members).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/byte_source.h"
#include "data/problem.h"
#include "data/stream.h"

namespace gt {

struct ValueSpans;  // data/formats/value_consumer.h

struct NpyHeader {
  uint64_t data_offset = 0;            ///< where the array bytes start
  std::optional<uint64_t> data_bytes;  ///< nullopt for object arrays and structured dtypes
  std::string descr;                   ///< "<f2", "<i8", ...
  bool is_float = false;
};

/// Where the header that starts `head` says the array data begins (magic,
/// version and length only); nullopt if `head` does not start a .npy header.
std::optional<uint64_t> npy_header_end(std::string_view head);

/// Parses the header at the start of `head` (which must hold at least the
/// whole header) of a .npy of `total_bytes`. Returns nullopt with a problem
/// appended to `check`, or with check.unverifiable set when `head` is too
/// short. A header whose array size cannot be computed (object arrays,
/// structured dtypes) is returned with data_bytes nullopt and
/// check.unverifiable set. A returned data_offset + *data_bytes never
/// overflows.
std::optional<NpyHeader> parse_npy_header(std::string_view head, uint64_t total_bytes,
                                          FileCheck& check);

/// Quick checks of a .npy file; with `deep`, returns the consumers that scan
/// the array data for all-zero blocks.
void verify_npy(const ByteSource& src, bool deep, FileCheck& check,
                std::vector<std::unique_ptr<StreamConsumer>>& consumers,
                ValueSpans* values = nullptr);

}  // namespace gt
