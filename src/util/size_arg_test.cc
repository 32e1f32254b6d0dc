#include "util/size_arg.h"

#include <gtest/gtest.h>

namespace gt {

TEST(SizeArg, BinaryUnitsAndBytes) {
  EXPECT_EQ(*parse_size_bytes("4096"), 4096u);
  EXPECT_EQ(*parse_size_bytes("64MiB"), 64ull << 20);
  EXPECT_EQ(*parse_size_bytes("64m"), 64ull << 20);
  EXPECT_EQ(*parse_size_bytes("1GiB"), 1ull << 30);
  EXPECT_EQ(*parse_size_bytes("2T"), 2ull << 40);
}

TEST(SizeArg, BadTextIsAnErrorQuotingIt) {
  for (const char* t :
       {"", "0", "1.5G", "12 MiB", "1PB", "-1", "G", "99999999999999999999", "17179869184T"}) {
    Result<uint64_t> r = parse_size_bytes(t);
    ASSERT_FALSE(r) << t;
    EXPECT_NE(r.error().message.find(std::string("'") + t + "'"), std::string::npos) << t;
  }
}

}  // namespace gt
