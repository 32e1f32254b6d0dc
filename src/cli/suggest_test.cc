#include "cli/suggest.h"

#include <gtest/gtest.h>

namespace gt {
namespace suggest_test {

const std::vector<std::string> kCommands = {"free", "serve", "data", "help"};
const std::vector<std::string> kOptions = {"--json",     "--wide",        "--timeout",
                                           "--textfile", "--expect-gpus", "--exit-codes",
                                           "-V",         "--version"};

TEST(EditDistance, CountsEachEdit) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("free", "free"), 0u);
  EXPECT_EQ(edit_distance("fre", "free"), 1u);       // insert
  EXPECT_EQ(edit_distance("freee", "free"), 1u);     // delete
  EXPECT_EQ(edit_distance("frea", "free"), 1u);      // substitute
  EXPECT_EQ(edit_distance("exepct", "expect"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("", "data"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("serve", "free"), edit_distance("free", "serve"));
}

TEST(ClosestMatch, SuggestsTheNearCommand) {
  EXPECT_EQ(closest_match("fre", kCommands), "free");
  EXPECT_EQ(closest_match("dat", kCommands), "data");
  EXPECT_EQ(closest_match("serv", kCommands), "serve");
  EXPECT_EQ(closest_match("hlep", kCommands), "help");
}

TEST(ClosestMatch, SuggestsTheNearOption) {
  EXPECT_EQ(closest_match("--jsn", kOptions), "--json");
  EXPECT_EQ(closest_match("-json", kOptions), "--json");    // one dash
  EXPECT_EQ(closest_match("--jsn=1", kOptions), "--json");  // with a value
  EXPECT_EQ(closest_match("--timout", kOptions), "--timeout");
  EXPECT_EQ(closest_match("--textfiel", kOptions), "--textfile");
  EXPECT_EQ(closest_match("--expect-gpu", kOptions), "--expect-gpus");
  EXPECT_EQ(closest_match("--vers", kOptions), "--version");  // the one name it begins
}

TEST(ClosestMatch, NothingWhenNothingIsClose) {
  EXPECT_EQ(closest_match("banana", kCommands), std::nullopt);
  EXPECT_EQ(closest_match("--zzz", kOptions), std::nullopt);
  EXPECT_EQ(closest_match("-x", kOptions), std::nullopt);  // one letter: no guessing
  EXPECT_EQ(closest_match("", kOptions), std::nullopt);
  EXPECT_EQ(closest_match("--", kOptions), std::nullopt);
  EXPECT_EQ(closest_match("--ex", kOptions), std::nullopt);  // too short to guess
  EXPECT_EQ(closest_match("--exp", {"--expect", "--expect-gpus"}), std::nullopt);  // two
  EXPECT_EQ(closest_match(std::string(100000, 'a'), kOptions), std::nullopt);
}

TEST(ClosestMatch, TiesGoToTheEarlierName) {
  EXPECT_EQ(closest_match("dara", {"data", "dare"}), "data");
  EXPECT_EQ(closest_match("dara", {"dare", "data"}), "dare");
}

TEST(DidYouMean, WordsTheSuggestion) {
  EXPECT_EQ(did_you_mean("fre", kCommands), "; did you mean 'free'?");
  EXPECT_EQ(did_you_mean("banana", kCommands), "");
}

}  // namespace suggest_test
}  // namespace gt
