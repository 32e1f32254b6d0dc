// Counting the values of floating-point tensor data (--values): NaN, +Inf,
// -Inf and whether every element is zero, over float32, float16 and
// bfloat16 in either byte order. The hot loop reads 64-bit words and tests
// the exponent bits of every lane at once (no per-element branch or call);
// only a 4 KiB block that holds an all-ones exponent is walked element by
// element to tell NaN from +Inf and -Inf. Other dtypes are not counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gt {

enum class FloatType { kF32, kF16, kBF16 };

struct FloatLayout {
  FloatType type = FloatType::kF32;
  bool big_endian = false;
  bool operator==(const FloatLayout&) const = default;
};

/// Bytes per element (4 or 2).
size_t float_size(FloatType t);

/// "float32", "float16", "bfloat16".
const char* float_type_name(FloatType t);

struct ValueCounts {
  uint64_t elements = 0;
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  bool any_nonzero = false;  ///< an element that is neither +0 nor -0

  uint64_t non_finite() const { return nan + pos_inf + neg_inf; }
  /// At least one element, and every one is +0 or -0.
  bool all_zero() const { return elements > 0 && !any_nonzero; }
  void merge(const ValueCounts& o);
};

/// Counts the elements of [p, p + n). `n` must be a multiple of the
/// element size; `p` needs no alignment.
ValueCounts count_values(FloatLayout layout, const uint8_t* p, size_t n);

/// The same without the CPU-specific block test (AVX2 on x86-64), so that
/// tests cover both.
ValueCounts count_values_portable(FloatLayout layout, const uint8_t* p, size_t n);

/// The same over data that arrives in pieces of any size: an element split
/// between two pieces is put together before it is counted.
class ValueScanner {
 public:
  explicit ValueScanner(FloatLayout layout) : layout_(layout) {}
  void add(const uint8_t* p, size_t n);
  const ValueCounts& counts() const { return counts_; }
  /// Bytes of an incomplete last element (the data was not a whole number
  /// of elements).
  size_t pending_bytes() const { return pending_; }

 private:
  FloatLayout layout_;
  ValueCounts counts_;
  uint8_t carry_[4] = {};
  size_t pending_ = 0;
};

/// torch storage dtype names ("Float", "Half", "BFloat16"); nullopt for the
/// rest. torch writes little-endian unless its byteorder record says "big".
std::optional<FloatLayout> torch_float_layout(std::string_view dtype, bool big_endian = false);

/// safetensors dtypes "F32", "F16", "BF16" (always little-endian).
std::optional<FloatLayout> safetensors_float_layout(std::string_view dtype);

/// NumPy descr "<f4", ">f4", "=f4", "<f2", ">f2" ('=' is written as the
/// writer's order, which NumPy spells out; read as little-endian). NumPy has
/// no bfloat16.
std::optional<FloatLayout> npy_float_layout(std::string_view descr);

}  // namespace gt
