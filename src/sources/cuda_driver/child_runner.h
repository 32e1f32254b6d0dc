// Runs the probe's children (cuda_child.h) side by side, each under its own
// deadline: fork + exec of our own binary, its stdout and stderr on a pipe
// read line by line as they come, so the last "step NAME" it announced is
// known when the deadline passes. A child past its deadline is killed
// (SIGKILL); one that does not exit even then (asleep inside the driver) is
// left and said so, never waited for. The parent never loads CUDA.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gt {

struct ChildJob {
  std::vector<std::string> argv;  ///< argv[0] is the program to exec
  std::vector<std::string> env;   ///< "NAME=VALUE" set (or replaced) in the child
  std::chrono::milliseconds deadline{0};
};

enum class ChildEnd {
  kExited,        ///< exited on its own (status in exit_status)
  kSignalled,     ///< killed by a signal it did not get from us
  kKilled,        ///< past its deadline: killed by us, and reaped
  kKilledNoExit,  ///< past its deadline: killed, still not gone (in the driver)
  kNotStarted,    ///< fork or pipe failed (detail says why)
};

struct ChildOutcome {
  ChildEnd end = ChildEnd::kNotStarted;
  std::optional<int> exit_status;
  std::optional<int> signal;
  std::vector<std::string> lines;  ///< what it wrote, a line each (capped)
  double elapsed_ms = 0;
  /// When its last line came (ms from the start): a child killed long after
  /// it is in a call that did not return; one killed soon after, still
  /// making progress. 0 until a line comes.
  double last_line_ms = 0;
  std::chrono::milliseconds deadline{0};  ///< the job's
  std::string detail;
};

/// Runs every job at once; returns their outcomes in the jobs' order.
std::vector<ChildOutcome> run_children(const std::vector<ChildJob>& jobs);

}  // namespace gt
