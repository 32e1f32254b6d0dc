#include "cli/usage.h"

#include <gtest/gtest.h>

namespace gt {
namespace usage_test {

/// Runs parse_command_line over words; stderr in `err`.
std::optional<int> parse(CLI::App& app, std::vector<std::string> words, std::string& err) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  testing::internal::CaptureStderr();
  std::optional<int> rc = parse_command_line(app, static_cast<int>(argv.size()), argv.data(),
                                             {"gpu-triage test", {"--listen"}});
  err = testing::internal::GetCapturedStderr();
  return rc;
}

struct TestApp {
  CLI::App app{"test", "gpu-triage test"};
  bool json = false;
  uint32_t count = 0;
  TestApp() {
    app.allow_extras();
    app.add_flag("--json", json, "JSON");
    app.add_option("--count", count, "how many")->check(whole_number(1, 1024));
  }
};

TEST(ParseCommandLine, GoesOnWhenAllIsKnown) {
  TestApp t;
  std::string err;
  EXPECT_EQ(parse(t.app, {"test", "--json", "--count", "3"}, err), std::nullopt);
  EXPECT_TRUE(t.json);
  EXPECT_EQ(t.count, 3u);
  EXPECT_EQ(err, "");
}

TEST(ParseCommandLine, NamesTheFirstUnknownWordWithASuggestion) {
  TestApp t;
  std::string err;
  EXPECT_EQ(parse(t.app, {"test", "--jsn", "x", "y"}, err), 64);
  EXPECT_EQ(err,
            "gpu-triage test: unknown option '--jsn'; did you mean '--json'?\n"
            "Run 'gpu-triage test --help' for more information.\n");
  TestApp u;
  EXPECT_EQ(parse(u.app, {"test", "--lisen", "x"}, err), 64);  // a caller's own option
  EXPECT_NE(err.find("did you mean '--listen'?"), std::string::npos) << err;
  TestApp v;
  EXPECT_EQ(parse(v.app, {"test", "first", "second"}, err), 64);  // in the order given
  EXPECT_NE(err.find("unexpected argument 'first'\n"), std::string::npos) << err;
}

TEST(ParseCommandLine, BadNumbersNameTheOptionAndTheText) {
  for (auto [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"abc", "--count: 'abc' is not a whole number from 1 to 1024"},
           {"1e3", "--count: '1e3' is not a whole number from 1 to 1024"},
           {"-1", "--count: '-1' is not a whole number from 1 to 1024"},
           {"1025", "--count: 1025 is too large (at most 1024)"},
           {"99999999999999999999", "--count: 99999999999999999999 is too large (at most 1024)"},
           {"0", "--count: 0 is too small (at least 1)"}}) {
    TestApp t;
    std::string err;
    EXPECT_EQ(parse(t.app, {"test", "--count", text}, err), 64) << text;
    EXPECT_EQ(err.substr(0, err.find('\n')), "gpu-triage test: " + message);
  }
}

TEST(OptionNames, AsTyped) {
  TestApp t;
  std::vector<std::string> names = option_names(t.app);
  EXPECT_NE(std::find(names.begin(), names.end(), "--json"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "--count"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "-h"), names.end());
}

}  // namespace usage_test
}  // namespace gt
