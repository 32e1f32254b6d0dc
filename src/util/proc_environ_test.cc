#include "util/proc_environ.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

using namespace std::string_literals;

TEST(ProcEnviron, EntriesWithoutANameOrEqualsAreSkipped) {
  auto env = parse_environ("A=1\0B\0=x\0C="s);
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(env["A"], "1");
  EXPECT_EQ(env["C"], "");
}

TEST(ProcEnviron, TheFirstOfARepeatedNameWinsAsGetenvDoes) {
  auto env = parse_environ("LD_LIBRARY_PATH=/first\0LD_LIBRARY_PATH=/second\0"s);
  EXPECT_EQ(env["LD_LIBRARY_PATH"], "/first");
}

TEST(ProcEnviron, AValueKeepsItsEqualsSignsAndAMissingFinalNul) {
  auto env = parse_environ("X=a=b\0Y=c"s);
  EXPECT_EQ(env["X"], "a=b");
  EXPECT_EQ(env["Y"], "c");
}

TEST(ProcEnviron, BoundedAt4096Entries) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "V" + std::to_string(i) + "=1" + '\0';
  EXPECT_EQ(parse_environ(text).size(), 4096u);
}

}  // namespace
}  // namespace gt
