#include "sources/incident/recording_host.h"

#include <fmt/format.h>

namespace gt {
namespace {

constexpr const char* kCommandsDir = "/.gt-fixture/commands/";

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

CommandResult RecordingHost::run(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout) const {
  CommandResult r = runner_->run(argv, timeout);
  if (r.absent) return r;
  const std::string base = fmt::format("{}rec{:02}", kCommandsDir, next_++);
  log_->file(base + ".cmd", joined(argv) + "\n");
  log_->file(base + ".out", r.out);
  if (r.spawn_error) {
    log_->file(base + ".rc", "spawn-error\n");
    log_->file(base + ".err", *r.spawn_error);
  } else {
    log_->file(base + ".rc", r.timed_out ? "timeout\n" : std::to_string(r.exit_code) + "\n");
    log_->file(base + ".err", r.err);
  }
  return r;
}

void RecordingHost::record_clock_once() const {
  std::call_once(clock_once_, [this] {
    std::string text;
    if (std::optional<int64_t> now = clock_->now_unix_s())
      text += "now_unix_s=" + std::to_string(*now) + "\n";
    if (Result<KernelClock> k = clock_->kernel_clock(); k) {
      // The fixture's words for adjtimex(2): a state (5 = TIME_ERROR) and
      // the status bits (0x40 = STA_UNSYNC) that kernel_clock_from reads.
      text += fmt::format("adjtimex_state={}\nadjtimex_status={:#x}\n", k->synchronised ? 0 : 5,
                          k->synchronised ? 0 : 0x40);
      if (k->max_error_us) text += "maxerror_us=" + std::to_string(*k->max_error_us) + "\n";
    }
    log_->file("/.gt-fixture/clock", text);
  });
}

std::optional<int64_t> RecordingHost::now_unix_s() const {
  record_clock_once();
  return clock_->now_unix_s();
}

Result<KernelClock> RecordingHost::kernel_clock() const {
  record_clock_once();
  return clock_->kernel_clock();
}

}  // namespace gt
