// CommandRunner: the seam through which gpu-triage runs external programs
// (journalctl today), so that tests can replace them with a fake
// (the idea of ninja's CommandRunner).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gt {

/// What one run of a program gave.
struct CommandResult {
  int exit_code = -1;                      ///< exit status; -1 when killed by a signal or not run
  bool timed_out = false;                  ///< killed because the timeout passed
  std::string out;                         ///< captured stdout (at most 64 MiB)
  std::string err;                         ///< captured stderr (at most 64 MiB)
  std::optional<std::string> spawn_error;  ///< "cannot run X: No such file..." when not started
  /// A fixture tree that does not stand in for this command: there is
  /// nothing to report (readers say nothing; a real host's missing program
  /// is a spawn_error).
  bool absent = false;
};

/// Runs an external program with a hard timeout.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  /// Runs argv (argv[0] looked up in PATH) with stdin from /dev/null, and
  /// returns within about `timeout` whatever the program does. Never throws.
  virtual CommandResult run(const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout) const = 0;
};

/// The real runner: posix_spawnp into a new process group, stdout and stderr
/// read through pipes with poll(), SIGKILL to the whole group at the timeout,
/// and the child reaped (by a detached thread if it cannot die at once, e.g.
/// stuck in the kernel). Output beyond 64 MiB per stream is read and dropped.
class RealCommandRunner : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout) const override;
};

/// Bytes kept per stream.
inline constexpr size_t kCommandOutputCap = 64u << 20;

}  // namespace gt
