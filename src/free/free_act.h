// Acting on a free plan: signal each tree's root through a pidfd verified
// against the planned start time (a reused PID is never hit), watch NVML
// until the memory is released, escalate to SIGKILL after the grace period,
// and say what remains.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "free/free_plan.h"
#include "sources/kernel_log/command_runner.h"

namespace gt {

struct GpuRelease {
  uint32_t index = 0;
  std::optional<uint64_t> used_before_bytes;
  std::optional<uint64_t> used_after_bytes;
  std::optional<double> released_after_s;  ///< when its holders left NVML's list
  bool free_at_end = false;                ///< free, and no stopped server was started on it again
  /// A server stopped on it was started again within the settle window (or
  /// a process the plan did not see holds it): not free, whatever NVML says.
  bool started_again = false;
};

struct FreeResult {
  std::vector<GpuRelease> gpus;
  std::vector<std::string> actions;    ///< what was done, in order
  std::vector<Refusal> refusals;       ///< refused at act time (PID reused...)
  std::vector<std::string> failures;   ///< what failed (signal, systemctl)
  std::vector<std::string> manual;     ///< plan commands gpu-triage cannot run (a user unit)
  std::vector<std::string> remaining;  ///< memory still held, with the reset recipe
  bool memory_remains = false;
  /// The bundle written before the first signal (issue 37); nullopt when
  /// none was written (plan mode, nothing to stop, --no-bundle).
  std::optional<std::string> bundle;
};

/// Re-reads the GPUs (NVML plus /proc); called every poll.
using CollectFn = std::function<NodeSnapshot()>;

/// Opens a pidfd for `id` and checks its start time under "/" still matches.
/// Returns the fd, or an error saying the process is gone or the PID reused.
Result<int> open_verified_pidfd(const ProcId& id);

/// Carries out `plan`. `before` is the snapshot the plan came from.
FreeResult act_free(const FreePlan& plan, const NodeSnapshot& before, const FreeOptions& options,
                    const CollectFn& collect, const CommandRunner& runner);

/// Like act_free's final step without acting: the selected GPUs as they
/// are, with the reset recipe for memory no process holds.
FreeResult describe_state(const FreePlan& plan, const NodeSnapshot& now);

}  // namespace gt
