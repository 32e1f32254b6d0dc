#include <gtest/gtest.h>

#include "checks/checks.h"
#include "checks/test_fingerprint.h"
#include "model/snapshot.h"

namespace gt {
namespace change_timeline_test {

/// Boot 2's snapshot: the story's record of boot 1, this boot's first run
/// at `first` (when set), this run's fingerprint `now`.
NodeSnapshot boot_two(const Fingerprint& now, const std::optional<Fingerprint>& first) {
  NodeSnapshot s;
  s.incident.emplace();
  s.incident->timeline.push_back({1767226100, "this boot", "/proc/stat"});
  GpuHistory& h = s.history.emplace();
  h.boot_id = "boot-2";
  h.boots = {{"boot-1", 1767200000, 1767225000, story_fingerprint(), story_fingerprint(), {}}};
  if (first)
    h.boots.push_back({"boot-2", first->taken_unix_s, first->taken_unix_s, first, first, {}});
  s.fingerprint = now;
  return s;
}

std::vector<std::string> lines(const NodeSnapshot& s) {
  std::vector<std::string> out;
  for (const IncidentLine& l : s.incident->timeline)
    out.push_back(std::to_string(l.time_unix_s.value_or(0)) + " " + l.what);
  return out;
}

TEST(ChangeTimeline, TheComparedRunTheContainerAndEachChangeWhenFirstSeen) {
  Fingerprint now = story_fingerprint();
  now.taken_unix_s = 1767229000;
  now.container = ContainerPrint{kStoryNewContainer, 1767226200, "/proc/self/cgroup"};
  now.mounts[0].device = "nvme0n1p1";
  Fingerprint first = now;
  first.taken_unix_s = 1767226500;                 // this boot's first run saw both already
  now.driver.kernel_module_version = "595.10.01";  // since then: this run's
  NodeSnapshot s = boot_two(now, first);
  add_change_timeline(s);
  const std::vector<std::string> want = {
      "1767225000 gpu-triage's run compared with (the last run of boot boot-1 (2025-12-31 "
      "23:50 UTC)): container aaaaaaaaaaaa, driver 590.48.01, /data on vdb1",
      "1767226100 this boot",
      "1767226200 container bbbbbbbbbbbb created (gpu-triage runs in it)",
      "1767226500 changed since then: container recreated: aaaaaaaaaaaa -> bbbbbbbbbbbb",
      "1767226500 changed since then: data device /data: vdb1 -> nvme0n1p1",
      "1767229000 changed since then: driver kernel module: 590.48.01 -> 595.10.01"};
  EXPECT_EQ(lines(s), want);
}

TEST(ChangeTimeline, NothingWithoutARecordAndNoChangeLinesWhenNothingChanged) {
  NodeSnapshot s = boot_two(story_fingerprint(), std::nullopt);
  s.history.reset();
  add_change_timeline(s);
  EXPECT_EQ(lines(s), std::vector<std::string>{"1767226100 this boot"});

  NodeSnapshot same = boot_two(story_fingerprint(), std::nullopt);
  same.fingerprint->container->created_unix_s.reset();  // creation unknown: no line
  add_change_timeline(same);
  ASSERT_EQ(same.incident->timeline.size(), 2u);
  EXPECT_EQ(same.incident->timeline[0].source, "record across boots");
}

}  // namespace change_timeline_test
}  // namespace gt
