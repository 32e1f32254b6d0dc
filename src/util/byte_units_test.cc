#include "util/byte_units.h"

#include <gtest/gtest.h>

#include <limits>

namespace gt {
namespace {

TEST(ByteUnits, BinaryUnitsEverywhere) {
  EXPECT_EQ(format_bytes(uint64_t{75800000000}), "70.6 GiB");
  EXPECT_EQ(format_bytes(uint64_t{512} << 20), "512 MiB");
  EXPECT_EQ(format_bytes(uint64_t{3072}), "3.0 KiB");
  EXPECT_EQ(format_bytes(uint64_t{100}), "100 B");
  EXPECT_EQ(format_bytes(uint64_t{15} << 40), "15.0 TiB");
  EXPECT_EQ(format_bytes(uint64_t{0}), "0 B");
  EXPECT_EQ(format_bytes(std::numeric_limits<uint64_t>::max()), "16777216.0 TiB");
}

TEST(ByteUnits, EstimatesThatAreNotNumbersAreUnknown) {
  EXPECT_EQ(format_bytes(-1.0), "?");
  EXPECT_EQ(format_bytes(std::numeric_limits<double>::infinity()), "?");
  EXPECT_EQ(format_bytes(std::numeric_limits<double>::quiet_NaN()), "?");
  EXPECT_EQ(format_bytes(1536.0), "1.5 KiB");
}

}  // namespace
}  // namespace gt
