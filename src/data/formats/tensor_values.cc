// The word trick: in each lane of a 64-bit word, t = lane & exponent_mask
// is at most the mask, and t + (lowest exponent bit) reaches the lane's top
// bit exactly when the exponent is all ones (Inf or NaN), without carrying
// into the next lane. OR-ing that over a block and testing the top bits says
// whether the block holds any Inf or NaN; OR-ing lane & ~sign says whether
// any element is nonzero. Blocks are 512 words (4 KiB), read 16 or 32
// bytes at a time (SSE2, or AVX2 when the CPU has it); a block whose test
// fires is counted element by element. A big-endian word is byte-swapped first: its lanes come out
// reversed but each in host order, which is all the counts need.
#include "data/formats/tensor_values.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace gt {
namespace {

static_assert(std::endian::native == std::endian::little, "the word masks assume a little host");

struct Masks {
  uint64_t exponent, low_exponent_bit, top, magnitude;
};

constexpr Masks masks(FloatType t) {
  switch (t) {
    case FloatType::kF32:
      return {0x7F8000007F800000, 0x0080000000800000, 0x8000000080000000, 0x7FFFFFFF7FFFFFFF};
    case FloatType::kF16:
      return {0x7C007C007C007C00, 0x0400040004000400, 0x8000800080008000, 0x7FFF7FFF7FFF7FFF};
    case FloatType::kBF16:
      break;
  }
  return {0x7F807F807F807F80, 0x0080008000800080, 0x8000800080008000, 0x7FFF7FFF7FFF7FFF};
}

constexpr size_t kBlockWords = 512;  // 4 KiB

template <bool kSwap>
inline uint64_t load64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (kSwap) w = __builtin_bswap64(w);
  return w;
}

struct BlockTest {
  bool special = false;  // an all-ones exponent somewhere
  bool nonzero = false;
};

// GCC's vector extension (the auto-vectoriser gives up on memcpy loads of
// 64-bit words): two accumulators, so that the ORs do not wait on each other.
using Vec16 = uint64_t __attribute__((vector_size(16)));
#if defined(__x86_64__)
using Vec32 = uint64_t __attribute__((vector_size(32)));
#endif

template <typename V>
inline BlockTest or_block(const uint8_t* p, const Masks& m) {
  constexpr size_t kWords = sizeof(V) / 8;
  V s0 = {}, s1 = {}, z0 = {}, z1 = {};
  for (size_t i = 0; i < kBlockWords; i += 2 * kWords) {
    V a, b;
    std::memcpy(&a, p + 8 * i, sizeof a);
    std::memcpy(&b, p + 8 * (i + kWords), sizeof b);
    s0 |= (a & m.exponent) + m.low_exponent_bit;
    s1 |= (b & m.exponent) + m.low_exponent_bit;
    z0 |= a & m.magnitude;
    z1 |= b & m.magnitude;
  }
  V s = s0 | s1, z = z0 | z1;
  uint64_t special = 0, nonzero = 0;
  for (size_t k = 0; k < kWords; ++k) {
    special |= s[k];
    nonzero |= z[k];
  }
  return {(special & m.top) != 0, nonzero != 0};
}

BlockTest or_block_base(const uint8_t* p, const Masks& m) { return or_block<Vec16>(p, m); }

#if defined(__x86_64__)
__attribute__((target("avx2"))) BlockTest or_block_avx2(const uint8_t* p, const Masks& m) {
  return or_block<Vec32>(p, m);
}
#endif

using BlockFn = BlockTest (*)(const uint8_t*, const Masks&);

// AVX2 when the CPU has it (chosen once), else SSE2 / the target's base.
BlockFn block_fn() {
#if defined(__x86_64__)
  static const BlockFn fn = __builtin_cpu_supports("avx2") ? or_block_avx2 : or_block_base;
  return fn;
#else
  return or_block_base;
#endif
}

template <FloatType kType, bool kSwap>
BlockTest test_block(const uint8_t* p, BlockFn fn) {
  constexpr Masks m = masks(kType);
  if constexpr (kSwap) {  // rare (NumPy '>f4'): plain words
    uint64_t special = 0, nonzero = 0;
    for (size_t i = 0; i < kBlockWords; ++i) {
      uint64_t w = load64<true>(p + 8 * i);
      special |= (w & m.exponent) + m.low_exponent_bit;
      nonzero |= w & m.magnitude;
    }
    return {(special & m.top) != 0, nonzero != 0};
  }
  return fn(p, m);
}

// Element by element: Inf is exactly sign + all-ones exponent + zero
// mantissa; NaN is a larger magnitude (quiet or signalling, any payload).
template <typename U, U kInf, bool kSwap>
void count_elements(const uint8_t* p, size_t count, ValueCounts& c) {
  constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
  uint64_t nan = 0, pos = 0, neg = 0;
  U nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    U x;
    std::memcpy(&x, p + i * sizeof(U), sizeof(U));
    if constexpr (kSwap) x = sizeof(U) == 2 ? U(__builtin_bswap16(x)) : U(__builtin_bswap32(x));
    U mag = U(x & U(~kSign));
    nan += mag > kInf;
    pos += x == kInf;
    neg += x == U(kInf | kSign);
    nonzero |= mag;
  }
  c.nan += nan;
  c.pos_inf += pos;
  c.neg_inf += neg;
  c.any_nonzero = c.any_nonzero || nonzero != 0;
}

template <FloatType kType, bool kSwap>
void count_some(const uint8_t* p, size_t count, ValueCounts& c) {
  if constexpr (kType == FloatType::kF32)
    count_elements<uint32_t, 0x7F800000u, kSwap>(p, count, c);
  else if constexpr (kType == FloatType::kF16)
    count_elements<uint16_t, 0x7C00, kSwap>(p, count, c);
  else
    count_elements<uint16_t, 0x7F80, kSwap>(p, count, c);
}

template <FloatType kType, bool kSwap>
ValueCounts count_typed(const uint8_t* p, size_t n, BlockFn fn) {
  constexpr size_t kItem = kType == FloatType::kF32 ? 4 : 2;
  constexpr size_t kBlockBytes = kBlockWords * 8;
  ValueCounts c;
  c.elements = n / kItem;
  size_t off = 0;
  for (; off + kBlockBytes <= n; off += kBlockBytes) {
    BlockTest t = test_block<kType, kSwap>(p + off, fn);
    c.any_nonzero = c.any_nonzero || t.nonzero;
    if (t.special) count_some<kType, kSwap>(p + off, kBlockBytes / kItem, c);
  }
  count_some<kType, kSwap>(p + off, (n - off) / kItem, c);  // the last partial block
  return c;
}

template <FloatType kType>
ValueCounts count_ordered(bool big_endian, const uint8_t* p, size_t n, BlockFn fn) {
  return big_endian ? count_typed<kType, true>(p, n, fn) : count_typed<kType, false>(p, n, fn);
}

ValueCounts count_with(FloatLayout layout, const uint8_t* p, size_t n, BlockFn fn) {
  switch (layout.type) {
    case FloatType::kF32:
      return count_ordered<FloatType::kF32>(layout.big_endian, p, n, fn);
    case FloatType::kF16:
      return count_ordered<FloatType::kF16>(layout.big_endian, p, n, fn);
    case FloatType::kBF16:
      break;
  }
  return count_ordered<FloatType::kBF16>(layout.big_endian, p, n, fn);
}

}  // namespace

size_t float_size(FloatType t) { return t == FloatType::kF32 ? 4 : 2; }

const char* float_type_name(FloatType t) {
  switch (t) {
    case FloatType::kF32:
      return "float32";
    case FloatType::kF16:
      return "float16";
    case FloatType::kBF16:
      break;
  }
  return "bfloat16";
}

void ValueCounts::merge(const ValueCounts& o) {
  elements += o.elements;
  nan += o.nan;
  pos_inf += o.pos_inf;
  neg_inf += o.neg_inf;
  any_nonzero = any_nonzero || o.any_nonzero;
}

ValueCounts count_values(FloatLayout layout, const uint8_t* p, size_t n) {
  return count_with(layout, p, n, block_fn());
}

ValueCounts count_values_portable(FloatLayout layout, const uint8_t* p, size_t n) {
  return count_with(layout, p, n, or_block_base);
}

void ValueScanner::add(const uint8_t* p, size_t n) {
  const size_t item = float_size(layout_.type);
  if (pending_ > 0) {  // complete the element split by the previous piece
    size_t take = std::min(item - pending_, n);
    std::memcpy(carry_ + pending_, p, take);
    pending_ += take;
    p += take;
    n -= take;
    if (pending_ < item) return;
    counts_.merge(count_values(layout_, carry_, item));
    pending_ = 0;
  }
  size_t whole = n / item * item;
  counts_.merge(count_values(layout_, p, whole));
  pending_ = n - whole;
  std::memcpy(carry_, p + whole, pending_);
}

std::optional<FloatLayout> torch_float_layout(std::string_view dtype, bool big_endian) {
  if (dtype == "Float") return FloatLayout{FloatType::kF32, big_endian};
  if (dtype == "Half") return FloatLayout{FloatType::kF16, big_endian};
  if (dtype == "BFloat16") return FloatLayout{FloatType::kBF16, big_endian};
  return std::nullopt;
}

std::optional<FloatLayout> safetensors_float_layout(std::string_view dtype) {
  if (dtype == "F32") return FloatLayout{FloatType::kF32};
  if (dtype == "F16") return FloatLayout{FloatType::kF16};
  if (dtype == "BF16") return FloatLayout{FloatType::kBF16};
  return std::nullopt;
}

std::optional<FloatLayout> npy_float_layout(std::string_view descr) {
  if (descr.size() != 3 || descr[1] != 'f' ||
      (descr[0] != '<' && descr[0] != '>' && descr[0] != '='))
    return std::nullopt;
  bool big = descr[0] == '>';
  if (descr[2] == '4') return FloatLayout{FloatType::kF32, big};
  if (descr[2] == '2') return FloatLayout{FloatType::kF16, big};
  return std::nullopt;
}

}  // namespace gt
