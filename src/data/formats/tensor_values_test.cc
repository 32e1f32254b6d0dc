#include "data/formats/tensor_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace gt {
namespace tensor_values_test {

constexpr FloatLayout kF32{FloatType::kF32}, kF16{FloatType::kF16}, kBF16{FloatType::kBF16};

// Element bit patterns written as bytes in the given order.
template <typename U>
std::vector<uint8_t> bytes_of(const std::vector<U>& v, bool big_endian = false) {
  std::vector<uint8_t> out;
  for (U x : v)
    for (size_t i = 0; i < sizeof(U); ++i) {
      size_t shift = 8 * (big_endian ? sizeof(U) - 1 - i : i);
      out.push_back(uint8_t(x >> shift));
    }
  return out;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

ValueCounts count(FloatLayout l, const std::vector<uint8_t>& b) {
  return count_values(l, b.data(), b.size());
}

TEST(TensorValuesTest, Float32SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<uint32_t> v = {
      f32_bits(1.5f),    f32_bits(-0.0f), f32_bits(inf),
      f32_bits(-inf),    0x7FC00000,      0x7F800001,  // quiet NaN, signalling NaN
      0xFFC00001,                                      // negative quiet NaN with a payload
      0x00000001,        0x807FFFFF,                   // denormals
      f32_bits(3.4e38f), 0xFF7FFFFF,                   // largest finite magnitudes
  };
  ValueCounts c = count(kF32, bytes_of(v));
  EXPECT_EQ(c.elements, v.size());
  EXPECT_EQ(c.nan, 3u);
  EXPECT_EQ(c.pos_inf, 1u);
  EXPECT_EQ(c.neg_inf, 1u);
  EXPECT_EQ(c.non_finite(), 5u);
  EXPECT_TRUE(c.any_nonzero);
}

TEST(TensorValuesTest, Float16AndBFloat16SpecialValues) {
  // float16: Inf 0x7C00, NaN above it; 0x7BFF is 65504 (finite); 0x0001 a denormal.
  std::vector<uint16_t> h = {0x3C00, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
                             0xFE00, 0x7BFF, 0x0001, 0x8000};
  ValueCounts c = count(kF16, bytes_of(h));
  EXPECT_EQ(c.elements, 9u);
  EXPECT_EQ(c.nan, 3u);
  EXPECT_EQ(c.pos_inf, 1u);
  EXPECT_EQ(c.neg_inf, 1u);
  // bfloat16: the top half of a float32. 0x7C00 is a finite bf16 (about 2.7e36).
  std::vector<uint16_t> b = {0x3F80, 0x7F80, 0xFF80, 0x7FC0, 0x7F81,
                             0xFFC1, 0x7F7F, 0x7C00, 0x0001};
  c = count(kBF16, bytes_of(b));
  EXPECT_EQ(c.nan, 3u);
  EXPECT_EQ(c.pos_inf, 1u);
  EXPECT_EQ(c.neg_inf, 1u);
  // The same float16 pattern read as bf16 is finite, and the other way round.
  EXPECT_EQ(count(kBF16, bytes_of(std::vector<uint16_t>{0x7C00, 0x7E00})).non_finite(), 0u);
  EXPECT_EQ(count(kF16, bytes_of(std::vector<uint16_t>{0x7F80, 0xFF80})).non_finite(), 2u);
}

TEST(TensorValuesTest, ZerosPositiveAndNegative) {
  EXPECT_TRUE(count(kF32, bytes_of(std::vector<uint32_t>{0, 0x80000000, 0})).all_zero());
  EXPECT_TRUE(count(kBF16, bytes_of(std::vector<uint16_t>(5000, 0x8000))).all_zero());
  // A single denormal, anywhere in a long run, is not zero.
  std::vector<uint16_t> h(5000, 0);
  h[4097] = 0x0001;
  EXPECT_FALSE(count(kF16, bytes_of(h)).all_zero());
  EXPECT_FALSE(ValueCounts{}.all_zero());  // no elements: not "all zero"
}

// One odd element at every position of a whole 4 KiB block (and of the
// block after it), in an otherwise zero buffer: every lane of every vector
// of the word test is looked at.
TEST(TensorValuesTest, LoneElementAtEveryPosition) {
  std::vector<uint16_t> h(2 * 2048 + 5, 0);
  for (size_t pos = 0; pos < h.size(); ++pos) {
    for (uint16_t odd : {uint16_t(0x0001), uint16_t(0xFC00)}) {
      h[pos] = odd;
      std::vector<uint8_t> b = bytes_of(h);
      for (bool portable : {false, true}) {
        ValueCounts c = portable ? count_values_portable(kF16, b.data(), b.size())
                                 : count_values(kF16, b.data(), b.size());
        ASSERT_TRUE(c.any_nonzero) << pos << " portable=" << portable;
        ASSERT_EQ(c.neg_inf, odd == 0xFC00 ? 1u : 0u) << pos << " portable=" << portable;
      }
    }
    h[pos] = 0;
  }
}

TEST(TensorValuesTest, BigEndian) {
  std::vector<uint32_t> v = {0x7F800000, 0x3F800000, 0x7FC00000};
  ValueCounts c = count(FloatLayout{FloatType::kF32, true}, bytes_of(v, true));
  EXPECT_EQ(c.pos_inf, 1u);
  EXPECT_EQ(c.nan, 1u);
  // Read in the wrong order, 0x0000807F is a finite denormal: the order matters.
  EXPECT_EQ(count(kF32, bytes_of(v, true)).non_finite(), 0u);
  std::vector<uint16_t> h(1031, 0x3C00);
  h[1030] = 0xFC00;  // in the tail after the whole blocks
  h[3] = 0x7E00;
  c = count(FloatLayout{FloatType::kF16, true}, bytes_of(h, true));
  EXPECT_EQ(c.nan, 1u);
  EXPECT_EQ(c.neg_inf, 1u);
  EXPECT_EQ(count(*npy_float_layout(">f2"), bytes_of(h, true)).non_finite(), 2u);
}

// Reference: one element at a time through the C library (float32), or the
// plain definition (16-bit types).
ValueCounts reference(FloatLayout l, const std::vector<uint8_t>& b) {
  ValueCounts c;
  size_t item = float_size(l.type);
  for (size_t i = 0; i + item <= b.size(); i += item) {
    uint32_t x = 0;
    for (size_t k = 0; k < item; ++k) x |= uint32_t(b[i + k]) << (8 * k);
    ++c.elements;
    if (l.type == FloatType::kF32) {
      float f;
      std::memcpy(&f, &x, 4);
      c.nan += std::isnan(f);
      c.pos_inf += std::isinf(f) && f > 0;
      c.neg_inf += std::isinf(f) && f < 0;
      c.any_nonzero = c.any_nonzero || f != 0.0f;
      continue;
    }
    uint32_t exp = l.type == FloatType::kF16 ? 0x7C00 : 0x7F80, mag = x & 0x7FFF;
    c.nan += mag > exp;
    c.pos_inf += x == exp;
    c.neg_inf += x == (exp | 0x8000);
    c.any_nonzero = c.any_nonzero || mag != 0;
  }
  return c;
}

void expect_same(const ValueCounts& got, const ValueCounts& want, const std::string& what) {
  EXPECT_EQ(got.elements, want.elements) << what;
  EXPECT_EQ(got.nan, want.nan) << what;
  EXPECT_EQ(got.pos_inf, want.pos_inf) << what;
  EXPECT_EQ(got.neg_inf, want.neg_inf) << what;
  EXPECT_EQ(got.any_nonzero, want.any_nonzero) << what;
}

// Random data with specials sprinkled in, at every start alignment and
// many lengths (whole blocks, partial blocks, a few elements).
TEST(TensorValuesTest, MatchesReferenceAtAnyAlignmentAndLength) {
  std::mt19937 rng(7);
  const uint16_t specials16[] = {0x7C00, 0xFC00, 0x7E00, 0x7F80, 0xFF80, 0x7FC1, 0x8000, 0};
  const uint32_t specials32[] = {0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x80000000};
  for (FloatLayout l : {kF32, kF16, kBF16}) {
    for (size_t elems : {0u, 1u, 3u, 511u, 2048u, 2049u, 10000u}) {
      size_t item = float_size(l.type);
      std::vector<uint8_t> b(elems * item + 8);
      for (auto& x : b) x = uint8_t(rng() & 0x3F);  // small finite values
      for (size_t k = 0; k < elems / 300 + 1 && elems > 0; ++k) {
        size_t at = rng() % elems * item;
        uint32_t s = item == 4 ? specials32[rng() % 5] : specials16[rng() % 8];
        for (size_t i = 0; i < item; ++i) b[at + i] = uint8_t(s >> (8 * i));
      }
      for (size_t shift : {0u, 1u, 3u, 7u}) {
        std::vector<uint8_t> moved(b.begin() + shift, b.begin() + shift + elems * item);
        std::vector<uint8_t> buf(shift + moved.size());
        std::copy(moved.begin(), moved.end(), buf.begin() + shift);
        std::string what = std::string(float_type_name(l.type)) + " n=" + std::to_string(elems) +
                           " shift=" + std::to_string(shift);
        ValueCounts want = reference(l, moved);
        expect_same(count_values(l, buf.data() + shift, moved.size()), want, what);
        expect_same(count_values_portable(l, buf.data() + shift, moved.size()), want, what);
      }
    }
  }
}

TEST(TensorValuesTest, ScannerJoinsElementsSplitAcrossPieces) {
  std::vector<uint32_t> v(3000, f32_bits(0.25f));
  v[0] = 0x7FC00000;
  v[1500] = 0xFF800000;
  v[2999] = 0x7F800000;
  std::vector<uint8_t> b = bytes_of(v);
  for (size_t piece : {1u, 3u, 5u, 4095u, 4097u}) {
    ValueScanner s(kF32);
    for (size_t off = 0; off < b.size(); off += piece)
      s.add(b.data() + off, std::min(piece, b.size() - off));
    EXPECT_EQ(s.counts().elements, 3000u) << piece;
    EXPECT_EQ(s.counts().nan, 1u) << piece;
    EXPECT_EQ(s.counts().neg_inf, 1u) << piece;
    EXPECT_EQ(s.counts().pos_inf, 1u) << piece;
    EXPECT_EQ(s.pending_bytes(), 0u) << piece;
  }
  ValueScanner odd(kBF16);
  uint8_t three[3] = {0x80, 0x7F, 0x00};
  odd.add(three, 3);
  EXPECT_EQ(odd.counts().pos_inf, 1u);
  EXPECT_EQ(odd.pending_bytes(), 1u);  // an odd length leaves a partial element
}

TEST(TensorValuesTest, DtypeNames) {
  EXPECT_EQ(torch_float_layout("BFloat16"), (FloatLayout{FloatType::kBF16}));
  EXPECT_EQ(torch_float_layout("Half", true), (FloatLayout{FloatType::kF16, true}));
  EXPECT_EQ(torch_float_layout("Float"), (FloatLayout{FloatType::kF32}));
  EXPECT_FALSE(torch_float_layout("Double"));
  EXPECT_FALSE(torch_float_layout("Long"));
  EXPECT_EQ(safetensors_float_layout("BF16"), (FloatLayout{FloatType::kBF16}));
  EXPECT_EQ(safetensors_float_layout("F16"), (FloatLayout{FloatType::kF16}));
  EXPECT_FALSE(safetensors_float_layout("F64"));
  EXPECT_FALSE(safetensors_float_layout("F8_E4M3"));
  EXPECT_EQ(npy_float_layout("<f4"), (FloatLayout{FloatType::kF32}));
  EXPECT_EQ(npy_float_layout(">f4"), (FloatLayout{FloatType::kF32, true}));
  EXPECT_EQ(npy_float_layout("<f2"), (FloatLayout{FloatType::kF16}));
  EXPECT_FALSE(npy_float_layout("<f8"));
  EXPECT_FALSE(npy_float_layout("<i4"));
  EXPECT_FALSE(npy_float_layout("|V2"));  // how a bfloat16 extension type is saved
}

}  // namespace tensor_values_test
}  // namespace gt
