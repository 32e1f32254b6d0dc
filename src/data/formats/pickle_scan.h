// Reads the storage references out of torch.save's data.pkl without running
// any pickle code: a restricted opcode walker that only tracks strings,
// integers, globals and tuples, enough to see each persistent id
// ('storage', torch.<Dtype>Storage, '<key>', '<location>', numel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gt {

struct StorageRef {
  std::string key;    ///< record name under data/ ("0", "1", ...)
  std::string dtype;  ///< "BFloat16", "Long", ... (from torch.<dtype>Storage)
  uint64_t numel = 0;
  std::optional<uint32_t> itemsize_bytes;  ///< nullopt for a dtype we do not know
  bool is_float = false;                   ///< floating point: where a zero block is suspicious
};

struct PickleScan {
  std::vector<StorageRef> storages;
  bool complete = false;             ///< reached STOP; false: cut, invalid or unsupported (below)
  std::optional<std::string> error;  ///< what stopped the walk and where
  /// Every string pushed, in order (legacy key lists), with PickleStrings::kKeep.
  std::vector<std::string> strings;
  /// The bytes ended before STOP (inside an opcode's argument, or between
  /// opcodes): a truncated pickle, or one longer than the bytes given.
  bool cut = false;
  /// A valid pickle opcode (or a size) the walker does not model: the
  /// storages are unknown. Not a problem with the file, but nothing about its
  /// sizes can be said. Neither cut nor unsupported (and not complete) means
  /// the pickle is invalid: Python refuses it too ("invalid load key").
  bool unsupported = false;
};

/// Whether PickleScan::strings is filled (a copy of each string: only the
/// legacy format's key list needs them).
enum class PickleStrings : uint8_t { kKeep, kSkip };

/// Walks `pickle` (data.pkl bytes, or one of the legacy format's pickles
/// starting at `start`) up to its STOP opcode. Never allocates more than a
/// small multiple of the input size. `end_offset` receives the byte after STOP.
PickleScan scan_pickle(std::string_view pickle, size_t start = 0, size_t* end_offset = nullptr,
                       PickleStrings strings = PickleStrings::kKeep);

/// Bytes per element of a torch storage dtype name ("BFloat16" -> 2).
std::optional<uint32_t> torch_dtype_itemsize(std::string_view dtype);

}  // namespace gt
