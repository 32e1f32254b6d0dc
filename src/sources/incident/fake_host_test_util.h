// A CommandRunner and ClockSource for the incident tests: answers by the
// command's first two words, records what was asked.
#pragma once

#include <map>

#include "sources/incident/host.h"

namespace gt {

class FakeHost : public CommandRunner, public ClockSource {
 public:
  /// Answers for commands whose argv starts with `first` `second`.
  std::map<std::string, CommandResult> answers;
  std::optional<int64_t> now = 1'700'000'000;
  Result<KernelClock> kernel = KernelClock{true, 1000};
  mutable std::vector<std::vector<std::string>> asked;

  static CommandResult ok(std::string out) {
    CommandResult r;
    r.exit_code = 0;
    r.out = std::move(out);
    return r;
  }
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds) const override {
    asked.push_back(argv);
    const std::string key = argv.size() > 1 ? argv[0] + " " + argv[1] : argv.at(0);
    auto it = answers.find(key);
    if (it != answers.end()) return it->second;
    CommandResult r;
    r.spawn_error = "cannot run " + argv[0] + ": No such file or directory";
    return r;
  }
  std::optional<int64_t> now_unix_s() const override { return now; }
  Result<KernelClock> kernel_clock() const override { return kernel; }
};

}  // namespace gt
