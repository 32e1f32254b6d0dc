// The seams the incident collectors reach the host through: commands
// (journalctl, timedatectl) via CommandRunner, and the clock (time(2),
// adjtimex(2)) via ClockSource, so tests and fixture trees replace both.
//
// A --root tree other than "/" is another machine's state: its commands and
// clock come from files under <root>/.gt-fixture/ (FixtureHost), never from
// this machine:
//   .gt-fixture/commands/NAME.cmd   the exact command line (argv joined by ' ')
//   .gt-fixture/commands/NAME.out   its stdout; NAME.err its stderr;
//   .gt-fixture/commands/NAME.rc    its exit status (absent: 0); the word
//                                   "timeout" there: it hung (timed_out);
//                                   "spawn-error": it could not start, the
//                                   reason in NAME.err (recording_host.h)
//   .gt-fixture/clock               "now_unix_s=N", "adjtimex_state=N"
//                                   (5 = TIME_ERROR), "adjtimex_status=0xN",
//                                   "maxerror_us=N", one per line
// A command with no .cmd file, or with "absent" in NAME.rc, is one the tree
// does not stand in for: CommandResult::absent, which readers pass over in
// silence (a demo or test tree says nothing about sources it lacks), and a
// tree without .gt-fixture/clock has no clock (kernel_clock: kNotFound).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sources/kernel_log/command_runner.h"
#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

/// What adjtimex(2) says about the kernel's clock discipline.
struct KernelClock {
  bool synchronised = false;  ///< state != TIME_ERROR and STA_UNSYNC clear
  std::optional<int64_t> max_error_us;
};

class ClockSource {
 public:
  virtual ~ClockSource() = default;
  virtual std::optional<int64_t> now_unix_s() const = 0;
  virtual Result<KernelClock> kernel_clock() const = 0;
};

/// This machine: time(2) and adjtimex(2) with modes 0 (read only).
class RealClockSource : public ClockSource {
 public:
  std::optional<int64_t> now_unix_s() const override;
  Result<KernelClock> kernel_clock() const override;
};

/// Reads adjtimex's answer from state and status words (the kernel's
/// documented meaning: TIME_ERROR = 5, STA_UNSYNC = 0x0040).
KernelClock kernel_clock_from(int state, unsigned status, std::optional<int64_t> max_error_us);

/// A fixture tree's saved commands and clock (see the file comment).
class FixtureHost : public CommandRunner, public ClockSource {
 public:
  explicit FixtureHost(FsRoot root) : root_(std::move(root)) {}
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout) const override;
  std::optional<int64_t> now_unix_s() const override;
  Result<KernelClock> kernel_clock() const override;

 private:
  std::optional<std::string> clock_value(const std::string& key) const;
  FsRoot root_;
};

}  // namespace gt
