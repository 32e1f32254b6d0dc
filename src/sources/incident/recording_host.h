// RecordingHost: this machine's commands and clock, each answer also
// written to a ReadLog as the fixture tree's files (host.h's layout), so a
// bundle's root/ tree holds what journalctl and timedatectl said and what
// the clock read when the node was recorded, and its replay (FixtureHost)
// answers the collectors as this machine did (issue 37: the previous boot's
// journal tail travels with the bundle).
//   .gt-fixture/commands/recNN.cmd, .out, .err, .rc ("timeout", or
//   "spawn-error" with the reason in .err)
//   .gt-fixture/clock   both clock readings, taken at the first ask
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "sources/incident/host.h"
#include "util/read_log.h"

namespace gt {

class RecordingHost : public CommandRunner, public ClockSource {
 public:
  RecordingHost(std::shared_ptr<const CommandRunner> runner,
                std::shared_ptr<const ClockSource> clock, std::shared_ptr<ReadLog> log)
      : runner_(std::move(runner)), clock_(std::move(clock)), log_(std::move(log)) {}
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout) const override;
  std::optional<int64_t> now_unix_s() const override;
  Result<KernelClock> kernel_clock() const override;

 private:
  void record_clock_once() const;
  std::shared_ptr<const CommandRunner> runner_;
  std::shared_ptr<const ClockSource> clock_;
  std::shared_ptr<ReadLog> log_;
  mutable std::atomic<int> next_{0};
  mutable std::once_flag clock_once_;
};

}  // namespace gt
