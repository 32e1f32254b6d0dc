#include "util/time_format.h"

#include <gtest/gtest.h>

namespace gt {
namespace time_format_test {

TEST(FormatUtc, IsoByDefaultAndAnyStrftimeFormat) {
  EXPECT_EQ(format_utc(1764399000), "2025-11-29T06:50:00Z");
  EXPECT_EQ(format_utc(0, "%Y-%m-%d %H:%M:%S UTC"), "1970-01-01 00:00:00 UTC");
}

// Issue 48: a container "created 1550575222-01-00": a time no clock gives
// is unknown, said "?", never garbage.
TEST(FormatUtc, ATimeOutsideTheYears1970To9999IsUnknown) {
  EXPECT_EQ(format_utc(253402300799), "9999-12-31T23:59:59Z");
  EXPECT_EQ(format_utc(253402300800), "?");
  EXPECT_EQ(format_utc(48930000000000000, "%Y-%m-%d %H:%M UTC"), "?");
  EXPECT_EQ(format_utc(-1), "?");
}

}  // namespace time_format_test
}  // namespace gt
