#include "util/time_format.h"

#include <gtest/gtest.h>

namespace gt {
namespace time_format_test {

TEST(FormatUtc, IsoByDefaultAndAnyStrftimeFormat) {
  EXPECT_EQ(format_utc(1764399000), "2025-11-29T06:50:00Z");
  EXPECT_EQ(format_utc(0, "%Y-%m-%d %H:%M:%S UTC"), "1970-01-01 00:00:00 UTC");
}

}  // namespace time_format_test
}  // namespace gt
