#include "sources/kernel_log/command_runner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>

namespace gt {
namespace command_runner_test {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(CommandRunner, CapturesStdoutStderrAndExitCode) {
  CommandResult r =
      RealCommandRunner().run({"sh", "-c", "echo hi; echo err >&2; exit 3"}, milliseconds(5000));
  EXPECT_FALSE(r.spawn_error.has_value());
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(CommandRunner, StdinIsDevNull) {
  CommandResult r = RealCommandRunner().run({"cat"}, milliseconds(5000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

TEST(CommandRunner, TimeoutKillsAndReapsTheChild) {
  auto start = Clock::now();
  CommandResult r = RealCommandRunner().run({"sleep", "10"}, milliseconds(200));
  auto took = Clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_LT(took, milliseconds(1500));
  EXPECT_GE(took, milliseconds(190));
  int status = 0;
  EXPECT_LE(::waitpid(-1, &status, WNOHANG), 0) << "a child was left unreaped";
}

TEST(CommandRunner, TimeoutKillsGrandchildrenHoldingThePipes) {
  auto start = Clock::now();
  CommandResult r =
      RealCommandRunner().run({"sh", "-c", "sleep 10 & sleep 10; echo never"}, milliseconds(200));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(Clock::now() - start, milliseconds(1500));
  EXPECT_EQ(r.out, "");
}

TEST(CommandRunner, ExitedChildWithBackgroundGrandchildReturnsPromptly) {
  auto start = Clock::now();
  CommandResult r =
      RealCommandRunner().run({"sh", "-c", "echo done; sleep 10 &"}, milliseconds(5000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "done\n");
  EXPECT_LT(Clock::now() - start, milliseconds(1500));
}

TEST(CommandRunner, MissingProgramGivesSpawnError) {
  CommandResult r = RealCommandRunner().run({"gt-no-such-program-xyz", "-k"}, milliseconds(1000));
  ASSERT_TRUE(r.spawn_error.has_value());
  EXPECT_NE(r.spawn_error->find("gt-no-such-program-xyz"), std::string::npos);
  EXPECT_NE(r.spawn_error->find("No such file"), std::string::npos);
  EXPECT_FALSE(r.timed_out);
}

TEST(CommandRunner, LargeOutputIsReadWithoutDeadlock) {
  CommandResult r = RealCommandRunner().run(
      {"sh", "-c", "head -c 3000000 /dev/zero; head -c 200000 /dev/zero >&2"}, milliseconds(10000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 3000000u);
  EXPECT_EQ(r.err.size(), 200000u);
}

}  // namespace command_runner_test
}  // namespace gt
