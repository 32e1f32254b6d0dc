#include "util/token_shape.h"

#include <gtest/gtest.h>

namespace gt {
namespace {

TEST(TokenShape, RealShapesFromTheirStart) {
  EXPECT_EQ(token_shape_at("hf_abcdefghijklmnopqrstu12345 x", 0).length, 29u);
  EXPECT_EQ(token_shape_at("x github_pat_11ABCDEFG0abcdefghijklmnop_qrs", 2).prefix, "github_pat_");
  EXPECT_EQ(token_shape_at("AKIAIOSFODNN7EXAMPLE", 0).length, 20u);
  EXPECT_EQ(token_shape_at("xoxp-1234-5678-abcdef", 0).prefix, "xoxp-");
}

// Random bodies without a digit: a Hugging Face token of 34 letters, an
// AWS key id of 16 base32 letters.
TEST(TokenShape, ARandomBodyWithoutADigitIsAToken) {
  EXPECT_EQ(token_shape_at("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH x", 0).length, 37u);
  EXPECT_EQ(token_shape_at("AKIAIOSFODNNEXAMPLE", 0).length, 0u);  // 15: not AWS's length
  EXPECT_EQ(token_shape_at("AKIAIOSFODNNQEXAMPLE", 0).length, 20u);
  EXPECT_EQ(token_shape_at("hf_abcdefghijklmnopqrstuvwxyzabcdefgh", 0).length, 0u);  // one case
}

TEST(TokenShape, TooShortOrNoDigitIsNoToken) {
  EXPECT_EQ(token_shape_at("hf_downloads_llama_instruct", 0).length, 0u);
  EXPECT_EQ(token_shape_at("sk-long-model-name-instruct", 0).length, 0u);
  EXPECT_EQ(token_shape_at("hf_abc1", 0).length, 0u);
  EXPECT_EQ(token_shape_at("AKIA1234", 0).length, 0u);
  EXPECT_EQ(token_shape_at("", 0).length, 0u);
}

}  // namespace
}  // namespace gt
