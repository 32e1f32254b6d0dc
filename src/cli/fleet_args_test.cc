#include "cli/fleet_args.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gt {
namespace fleet_args_test {

/// argv for a command line of words (the program first).
struct Argv {
  explicit Argv(std::vector<std::string> w) : words(std::move(w)) {
    for (std::string& s : words) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(words.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> words;
  std::vector<char*> ptrs;
};

bool names_fleet(std::vector<std::string> words) {
  words.insert(words.begin(), "gpu-triage");
  Argv a(std::move(words));
  return names_a_fleet(a.argc(), a.argv());
}

TEST(NamesAFleet, ByAFleetOnlyOption) {
  EXPECT_TRUE(names_fleet({"--host", "h1"}));
  EXPECT_TRUE(names_fleet({"--json", "--host=h1,h2"}));
  EXPECT_TRUE(names_fleet({"--hosts-file", "f"}));
  EXPECT_TRUE(names_fleet({"--reports", "d"}));
  EXPECT_TRUE(names_fleet({"--drift"}));
  EXPECT_TRUE(names_fleet({"--host-timeout", "3s"}));
  EXPECT_FALSE(names_fleet({"--json", "--oneline", "--expect-gpus", "8"}));
  // A word that only starts like one is not it; after "--" nothing counts.
  EXPECT_FALSE(names_fleet({"--hostname"}));
  EXPECT_FALSE(names_fleet({"--", "--host", "h1"}));
}

TEST(NamesAFleet, BySmiXmlNamingAFolder) {
  const std::string dir = testing::TempDir() + "fleet_args_test_caps";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/a.xml";
  std::ofstream(file) << "<nvidia_smi_log/>";
  EXPECT_TRUE(names_fleet({"--smi-xml", dir}));
  EXPECT_TRUE(names_fleet({"--smi-xml=" + dir}));
  EXPECT_FALSE(names_fleet({"--smi-xml", file}));
  EXPECT_FALSE(names_fleet({"--smi-xml", "-"}));
  EXPECT_FALSE(names_fleet({"--smi-xml"}));
  std::filesystem::remove_all(dir);
}

TEST(ParseFleetArgs, HostsWithTheirOptions) {
  Argv a({"fleet", "--host", "h1,h2", "--host", "h1", "--expect-gpus", "8", "--path", "/data",
          "--no-kernel-log", "--exit-codes", "npd", "--fanout", "4", "--host-timeout", "2s"});
  ParsedFleetArgs p = parse_fleet_args(a.argc(), a.argv(), "gpu-triage fleet");
  ASSERT_TRUE(p.options);
  EXPECT_EQ(p.options->source, FleetSource::kHosts);
  EXPECT_EQ(p.options->hosts, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_EQ(p.options->expect_gpus, 8u);
  EXPECT_EQ(p.options->paths, (std::vector<std::string>{"/", "/data"}));
  EXPECT_TRUE(p.options->no_kernel_log);
  EXPECT_TRUE(p.options->npd_exit_codes);
  EXPECT_EQ(p.options->fanout, 4u);
  EXPECT_EQ(p.options->host_timeout, std::chrono::seconds(2));
}

TEST(ParseFleetArgs, RefusesWhatASourceCannotHonourSayingWhy) {
  const std::string dir = testing::TempDir() + "fleet_args_test_reports";
  std::filesystem::create_directories(dir);
  const std::string ssh = " is for hosts checked over ssh, not ";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--reports", dir, "--expect-gpus", "8"}, "--expect-gpus: a saved report was judged"},
      {{"--reports", dir, "--path", "/x"}, "--path" + ssh + "--reports DIR"},
      {{"--reports", dir, "--no-kernel-log"}, "--no-kernel-log" + ssh + "--reports DIR"},
      {{"--smi-xml", dir, "--fanout", "3"}, "--fanout" + ssh + "--smi-xml DIR"},
      {{"--smi-xml", dir, "--ssh-command", "ssh -J j"}, "--ssh-command" + ssh + "--smi-xml DIR"},
      {{"--smi-xml", dir, "--host-timeout", "3s"}, "--host-timeout" + ssh + "--smi-xml DIR"},
      {{"--smi-xml", dir + "/none"}, "no such folder"},
      {{"--smi-xml", "-"}, "a fleet reads a folder"},
      {{"--host", "h1", "--reports", dir}, "exclude each other"},
      {{"--drift"}, "a fleet needs hosts"},
      {{"--host", "h1", "--textfile", dir}, "unknown option '--textfile'"},
  };
  for (const auto& [words, why] : cases) {
    std::vector<std::string> argv = {"fleet"};
    argv.insert(argv.end(), words.begin(), words.end());
    Argv a(argv);
    testing::internal::CaptureStderr();
    ParsedFleetArgs p = parse_fleet_args(a.argc(), a.argv(), "gpu-triage fleet");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(p.options) << why;
    EXPECT_EQ(p.exit_code, ExitCode::kUsage) << why;
    EXPECT_EQ(err.rfind("gpu-triage fleet: ", 0), 0u) << err;
    EXPECT_NE(err.find(why), std::string::npos) << why << " not in: " << err;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace fleet_args_test
}  // namespace gt
