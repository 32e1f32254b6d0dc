// RecordingHost: what this machine's commands and clock answered, written as
// a fixture tree's files, is what FixtureHost answers from that tree.
#include "sources/incident/recording_host.h"

#include <gtest/gtest.h>

#include "sources/incident/fake_host_test_util.h"
#include "util/test_util.h"

namespace gt {
namespace recording_host_test {

/// Writes every file the recorder logged into `t`, as a bundle's root/ holds them.
void write_log(const ReadLog& log, const TempTree& t) {
  for (const ReadEntry& e : log.entries())
    if (e.kind == ReadEntry::Kind::kFile && e.bytes) t.write(e.path, *e.bytes);
}

TEST(RecordingHost, TheTreeAnswersAsTheMachineDid) {
  auto fake = std::make_shared<FakeHost>();
  CommandResult failed;
  failed.exit_code = 1;
  failed.err = "Data from the specified boot (-1) is not available";
  fake->answers["journalctl -k"] = failed;
  fake->answers["journalctl --list-boots"] = FakeHost::ok("[{\"index\":0}]\n");
  CommandResult hung;
  hung.timed_out = true;
  fake->answers["timedatectl show"] = hung;
  fake->now = 1'800'000'000;
  fake->kernel = KernelClock{false, 16000000};
  auto log = std::make_shared<ReadLog>();
  RecordingHost rec(fake, fake, log);
  const auto ms = std::chrono::milliseconds(10);
  const std::vector<std::vector<std::string>> asked = {{"journalctl", "-k", "-b", "-1"},
                                                       {"journalctl", "--list-boots"},
                                                       {"timedatectl", "show"},
                                                       {"nvidia-smi", "-q"}};
  std::vector<CommandResult> live;
  for (const auto& argv : asked) live.push_back(rec.run(argv, ms));
  EXPECT_EQ(rec.now_unix_s(), 1'800'000'000);
  ASSERT_TRUE(rec.kernel_clock());

  TempTree t;
  write_log(*log, t);
  FixtureHost replay(t.root());
  for (size_t i = 0; i < asked.size(); ++i) {
    CommandResult r = replay.run(asked[i], ms);
    EXPECT_EQ(r.exit_code, live[i].exit_code) << i;
    EXPECT_EQ(r.timed_out, live[i].timed_out) << i;
    EXPECT_EQ(r.out, live[i].out) << i;
    EXPECT_EQ(r.err, live[i].err) << i;
    EXPECT_EQ(r.spawn_error, live[i].spawn_error) << i;  // nvidia-smi: cannot run
    EXPECT_FALSE(r.absent) << i;
  }
  EXPECT_TRUE(replay.run({"journalctl", "-b", "-1", "-o", "json"}, ms).absent)
      << "a command not asked is not in the recording";
  EXPECT_EQ(replay.now_unix_s(), 1'800'000'000);
  Result<KernelClock> k = replay.kernel_clock();
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->synchronised);
  EXPECT_EQ(k->max_error_us, 16000000);
}

TEST(RecordingHost, ASynchronisedClockReplaysSynchronised) {
  auto fake = std::make_shared<FakeHost>();
  auto log = std::make_shared<ReadLog>();
  RecordingHost rec(fake, fake, log);
  ASSERT_TRUE(rec.kernel_clock());
  TempTree t;
  write_log(*log, t);
  Result<KernelClock> k = FixtureHost(t.root()).kernel_clock();
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->synchronised);
  EXPECT_EQ(k->max_error_us, 1000);
}

}  // namespace recording_host_test
}  // namespace gt
