// The report's width: the terminal, then $COLUMNS, then 100; 80 at least.
#include "render/terminal_width.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

TEST(TableWidth, TerminalThenColumnsThenDefault) {
  EXPECT_EQ(table_width_from(132, "90"), 132);
  EXPECT_EQ(table_width_from(std::nullopt, "90"), 90);
  EXPECT_EQ(table_width_from(std::nullopt, nullptr), 100);
  EXPECT_EQ(table_width_from(std::nullopt, ""), 100);
}

TEST(TableWidth, ZeroHugeOrGarbageIsNotBelieved) {
  EXPECT_EQ(table_width_from(0, nullptr), 100);      // serial console before stty
  EXPECT_EQ(table_width_from(0, "120"), 120);        // then $COLUMNS
  EXPECT_EQ(table_width_from(65535, nullptr), 100);  // a bogus ioctl answer
  EXPECT_EQ(table_width_from(std::nullopt, "0"), 100);
  EXPECT_EQ(table_width_from(std::nullopt, "99999"), 100);
  EXPECT_EQ(table_width_from(std::nullopt, "80x"), 100);
  EXPECT_EQ(table_width_from(std::nullopt, "-5"), 100);
}

TEST(TableWidth, NarrowerThanEightyIsEighty) {
  EXPECT_EQ(table_width_from(40, nullptr), 80);
  EXPECT_EQ(table_width_from(std::nullopt, "72"), 80);
  EXPECT_EQ(table_width_from(80, nullptr), 80);
}

}  // namespace
}  // namespace gt
