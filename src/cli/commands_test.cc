#include "cli/commands.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gt {
namespace commands_test {

const Command& entry(const char* name) {
  const Command* c = find_command(name);
  EXPECT_NE(c, nullptr) << name;
  return *c;
}

TEST(CommandTable, EveryEntryIsWhole) {
  std::set<std::string> seen;
  for (const std::string& name : command_names()) {
    const Command& c = entry(name.c_str());
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
    EXPECT_NE(c.run, nullptr) << name;
    EXPECT_GT(std::string(c.description).size(), 10u) << name;
    // Recording follows judging: the record keeps judged findings.
    if (has(c.steps, Step::kRecord)) {
      EXPECT_TRUE(has(c.steps, Step::kJudge)) << name;
    }
    // A command that judges has a snapshot to judge.
    if (has(c.steps, Step::kJudge)) {
      EXPECT_TRUE(has(c.stages, Stage::kGpus)) << name;
    }
  }
  EXPECT_EQ(find_command("fre"), nullptr);
}

TEST(CommandTable, OnlyTheNodesVerdictsWriteTheRecord) {
  // The record across boots is written by a run that judged this node, never
  // by free, watch's ticks, a fleet (other nodes) or data.
  std::set<std::string> writers;
  for (const std::string& name : command_names())
    if (has(entry(name.c_str()).steps, Step::kRecord)) writers.insert(name);
  EXPECT_EQ(writers, (std::set<std::string>{"triage", "serve"}));
}

TEST(CommandTable, FreeReadsOnlyTheGpusAndTheirServers) {
  // free acts on processes: nothing it does not need is read first (the
  // kernel log, the journal, disks can take seconds on a broken node).
  EXPECT_EQ(entry("free").stages, Stage::kGpus | Stage::kServers);
  EXPECT_EQ(entry("free").steps, 0u);
}

TEST(CommandTable, AFleetHostIsWhatTheGatherAnswers) {
  const Stages s = fleet_command().stages;
  for (Stage in : {Stage::kGpus, Stage::kHost, Stage::kServers, Stage::kKernelLog, Stage::kDisks})
    EXPECT_TRUE(has(s, in));
  // This machine's data, incident, mounts and record are not the hosts'.
  for (Stage out : {Stage::kData, Stage::kIncident, Stage::kMounts, Stage::kHistory})
    EXPECT_FALSE(has(s, out));
  EXPECT_TRUE(has(fleet_command().steps, Step::kJudge));
  EXPECT_FALSE(has(fleet_command().steps, Step::kRecord));
}

TEST(CommandTable, TriageAndServeCollectTheSame) {
  // serve's /metrics is the triage's report: the same stages and steps.
  EXPECT_EQ(entry("serve").stages, default_command().stages);
  EXPECT_EQ(entry("serve").steps, default_command().steps);
  EXPECT_EQ(default_command().stages, kAllStages);
  EXPECT_STREQ(default_command().name, "triage");
}

TEST(CommandTable, HelpListsTheListedOnes) {
  const std::string help = commands_help();
  for (const std::string& name : command_names()) {
    const bool listed = help.find("\n  " + name + " ") != std::string::npos;
    EXPECT_EQ(listed, entry(name.c_str()).listed) << name;
  }
}

}  // namespace commands_test
}  // namespace gt
