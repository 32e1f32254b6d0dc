#include "util/text.h"

#include <gtest/gtest.h>

namespace gt {
namespace text_test {

using Words = std::vector<std::string_view>;

TEST(SplitWords, DropsEmptyRunsBetweenAnySeparator) {
  EXPECT_EQ(split_words("  a \t b  ", " \t"), (Words{"a", "b"}));
  EXPECT_EQ(split_words("n1,,n2,", ","), (Words{"n1", "n2"}));
  EXPECT_EQ(split_words("l1\n\nl2\r\n", "\n"), (Words{"l1", "l2\r"}));
  EXPECT_EQ(split_words("", " "), Words{});
  EXPECT_EQ(split_words("   ", " "), Words{});
  EXPECT_EQ(split_words("one", " "), (Words{"one"}));
}

TEST(SplitWords, ViewsPointIntoTheText) {
  const std::string text = "sl local_address";
  const Words w = split_words(text, " ");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].data(), text.data() + 3);
}

TEST(LastLine, IsTheLastLineWithMoreThanBlanks) {
  EXPECT_EQ(last_line("first\nssh: connect: refused\r\n  \n"), "ssh: connect: refused");
  EXPECT_EQ(last_line(" \t\n\n"), "");
  EXPECT_EQ(last_line(""), "");
}

TEST(FirstLine, IsTheFirstLineWithoutItsBlanks) {
  EXPECT_EQ(first_line("\n  NVIDIA-SMI has failed \r\nmore"), "NVIDIA-SMI has failed");
  EXPECT_EQ(first_line(" \n"), "");
}

}  // namespace text_test
}  // namespace gt
