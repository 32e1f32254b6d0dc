#include "util/duration.h"

#include <gtest/gtest.h>

namespace gt {
namespace duration_test {

TEST(ParseDuration, AcceptsUnitsAndBareSeconds) {
  EXPECT_EQ(parse_duration("1s")->count(), 1000);
  EXPECT_EQ(parse_duration("500ms")->count(), 500);
  EXPECT_EQ(parse_duration("2.5s")->count(), 2500);
  EXPECT_EQ(parse_duration("3")->count(), 3000);
  EXPECT_EQ(parse_duration("1m")->count(), 60000);
  EXPECT_EQ(parse_duration("0")->count(), 0);
  // Hours and the day, the most any option takes (trial of issue 51: --recent 1h).
  EXPECT_EQ(parse_duration("1h")->count(), 3600000);
  EXPECT_EQ(parse_duration("1.5h")->count(), 5400000);
  EXPECT_EQ(parse_duration("1d")->count(), 86400000);
}

TEST(ParseDuration, RejectsGarbageWithTheTextQuoted) {
  for (const char* text : {"", "s", "-1s", "1x", "2d", "25h", "1.2.3s", "abc", "1e999"}) {
    Result<std::chrono::milliseconds> r = parse_duration(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().kind, ErrorKind::kMalformed);
    EXPECT_NE(r.error().message.find(std::string("'") + text + "'"), std::string::npos);
  }
}

TEST(WholeSeconds, RoundsDownButNeverBelowOne) {
  using std::chrono::milliseconds;
  EXPECT_EQ(whole_seconds(milliseconds(18500)), "18");
  EXPECT_EQ(whole_seconds(milliseconds(30000)), "30");
  EXPECT_EQ(whole_seconds(milliseconds(200)), "1");
  EXPECT_EQ(whole_seconds(milliseconds(0)), "1");
}

}  // namespace duration_test
}  // namespace gt
