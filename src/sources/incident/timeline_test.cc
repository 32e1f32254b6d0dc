// The "what happened" lines: in time order, each with its source.
#include "sources/incident/timeline.h"

#include <gtest/gtest.h>

namespace gt {
namespace timeline_test {

size_t index_of(const Incident& in, const std::string& part) {
  for (size_t i = 0; i < in.timeline.size(); ++i)
    if (in.timeline[i].what.find(part) != std::string::npos) return i;
  ADD_FAILURE() << "no line with " << part;
  return 999;
}

Incident story() {
  Incident in;
  in.boot_time_unix_s = 1'700'000'600;
  in.boot_id = "0b1c2d3e-4f50-6172";
  in.uptime_s = 3600;
  PreviousBoot b;
  b.first_entry_unix_s = 1'699'000'000;
  b.last_entry_unix_s = 1'700'000'000;
  b.ending = BootEnding::kAbrupt;
  b.io_errors = {14, 1'699'999'500, 1'699'999'990, "I/O error, dev vda"};
  b.hung_tasks = {3, 1'699'999'800, 1'700'000'000, "INFO: task x blocked for more than 120 s"};
  in.previous_boot = b;
  in.newest_files.push_back({"/data", "/data/run/s.jsonl", 1'699'999'400, 5, false, {}});
  return in;
}

TEST(BuildTimeline, StoryInTimeOrder) {
  Incident in = story();
  Server s;
  s.kind = "SGLang";
  s.start_time_unix_s = 1'700'000'641;
  s.started_after_boot_s = 41;
  s.auto_started = true;
  s.owner_kind = OwnerKind::kSystemdUnit;
  s.owner_name = "sglang.service";
  build_timeline(in, std::vector<Server>{s});
  size_t write = index_of(in, "last write under /data: /data/run/s.jsonl, 10 min before");
  size_t io = index_of(in, "14 storage I/O errors");
  size_t end = index_of(in, "previous boot ended abruptly");
  size_t boot = index_of(in, "this boot");
  size_t server = index_of(in, "SGLang started 41 s after boot by sglang.service (auto-start");
  EXPECT_LT(write, io);
  EXPECT_LT(io, end);
  EXPECT_LT(end, boot);
  EXPECT_LT(boot, server);
  EXPECT_NE(in.timeline[end].what.find("after 14 I/O errors, 3 hung tasks"), std::string::npos);
  EXPECT_EQ(in.timeline[end].source, "journal");
  EXPECT_EQ(in.timeline[boot].source, "/proc/stat");
}

// Trial finding (issue 49): an owner's name was cut to 12 characters
// whatever it was ("user-session session-2 (u"); only a container's id is
// shown short.
TEST(BuildTimeline, AnOwnerIsNamedWholeAContainerByItsShortId) {
  Incident in;
  in.boot_time_unix_s = 10;
  Server s;
  s.kind = "vLLM";
  s.start_time_unix_s = 81;
  s.owner_kind = OwnerKind::kUserSession;
  s.owner_name = "session-2 (uid 1000)";
  Server d = s;
  d.owner_kind = OwnerKind::kDocker;
  d.owner_name = std::string(64, 'a');
  build_timeline(in, std::vector<Server>{s, d});
  index_of(in, "by user-session session-2 (uid 1000)");
  index_of(in, "by docker aaaaaaaaaaaa");
  EXPECT_EQ(in.timeline.back().what.find(std::string(13, 'a')), std::string::npos);
}

TEST(BuildTimeline, UndatedLinesLast) {
  Incident in;
  in.boot_time_unix_s = 10;
  in.newest_files.push_back({"/data", {}, {}, 0, false, "cannot open /data: No such file"});
  build_timeline(in, std::nullopt);
  ASSERT_EQ(in.timeline.size(), 2u);
  EXPECT_FALSE(in.timeline[1].time_unix_s);
}

TEST(ApplyCrashRecords, PanicRecordFromThePreviousBootSetsTheEnding) {
  Incident in = story();
  in.previous_boot->io_errors = {};
  in.crash_records.push_back({"pstore",
                              "/sys/fs/pstore/dmesg-efi-1",
                              1'700'000'001,
                              {"Kernel panic - not syncing: Fatal exception"}});
  apply_crash_records(in);
  EXPECT_EQ(in.previous_boot->ending, BootEnding::kKernelPanic);
  Incident old = story();  // a record from long before: not this crash
  old.crash_records.push_back({"pstore", "/x", 1'600'000'000, {"Kernel panic - not syncing"}});
  apply_crash_records(old);
  EXPECT_EQ(old.previous_boot->ending, BootEnding::kAbrupt);
}

}  // namespace timeline_test
}  // namespace gt
