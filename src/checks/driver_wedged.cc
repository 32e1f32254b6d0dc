// driver.wedged: tasks in uninterruptible sleep inside the NVIDIA driver
// (sources/procfs/stuck_tasks.h). kill -9 cannot end them and every program
// that touches the GPUs hangs the same way: only a reboot frees the driver.
// An NVML call that timed out in this run is the same event seen from
// gpu-triage's side, so it is folded in (join_driver_wedged, join.cc).
#include <fmt/format.h>

#include <set>

#include "checks/checks.h"
#include "util/plural.h"

namespace gt {
namespace {

constexpr size_t kNamedInTitle = 4;      // tasks named in the title
constexpr size_t kNamedInEvidence = 16;  // tasks described in the evidence

std::string who(const StuckTask& t) {
  std::string s = fmt::format("{} (PID {}", t.comm.empty() ? "?" : t.comm, t.pid);
  if (t.tid) s += fmt::format(", thread {}", *t.tid);
  return s + ")";
}

/// Where it sleeps: the nvidia frame, else the wait channel.
std::string where(const StuckTask& t) {
  if (t.nvidia_frame) return *t.nvidia_frame;
  if (t.wchan) return *t.wchan + " (wchan)";
  return "nvidia code";
}

std::string title_of(const std::vector<StuckTask>& tasks) {
  std::set<uint32_t> pids;
  for (const StuckTask& t : tasks) pids.insert(t.pid);
  std::string names;
  for (size_t i = 0; i < tasks.size() && i < kNamedInTitle; ++i)
    names += (i ? ", " : "") + who(tasks[i]) + " in " + where(tasks[i]);
  if (tasks.size() > kNamedInTitle)
    names += fmt::format(" and {} more", tasks.size() - kNamedInTitle);
  // A thread is named as such; "N tasks of M processes" only when they differ.
  std::string count = tasks.size() == pids.size()
                          ? count_of(pids.size(), "process", "processes")
                          : fmt::format("{} tasks of {}", tasks.size(),
                                        count_of(pids.size(), "process", "processes"));
  return "The NVIDIA driver is wedged: " + count + " stuck in it (state D): " + names;
}

std::string evidence_of(const std::vector<StuckTask>& tasks) {
  std::string out;
  for (size_t i = 0; i < tasks.size() && i < kNamedInEvidence; ++i) {
    const StuckTask& t = tasks[i];
    out += (i ? "; " : "") + who(t) + ": state D";
    out += ", wchan " + t.wchan.value_or("unreadable");
    out += ", stack " + (t.nvidia_frame ? "frame " + *t.nvidia_frame : std::string("unreadable"));
  }
  if (tasks.size() > kNamedInEvidence)
    out += fmt::format("; {} more in stuck_nvidia_tasks", tasks.size() - kNamedInEvidence);
  return out;
}

}  // namespace

void check_driver_wedged(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.stuck_nvidia_tasks || s.stuck_nvidia_tasks->empty()) return;
  const std::vector<StuckTask>& tasks = *s.stuck_nvidia_tasks;
  Finding f = node_finding("driver.wedged");
  // Stuck at both ends of the window but nothing else hangs: a warning to
  // look again; an NVML call that timed out joins it and makes it critical.
  f.severity = Severity::kWarning;
  std::set<uint32_t> pids;
  for (const StuckTask& t : tasks) pids.insert(t.pid);
  if (pids.size() == 1) f.subject.pid = *pids.begin();
  f.title = title_of(tasks);
  f.evidence = evidence_of(tasks);
  f.action =
      "If it is still stuck a minute later (run gpu-triage again), the driver is wedged: "
      "nothing in user space can free a task stuck in it (kill -9 waits for it), and every "
      "program that touches the GPUs will hang too. Drain the node, collect "
      "nvidia-bug-report.sh in safe mode first (the plain run calls nvidia-smi and hangs; the "
      "reboot loses the state NVIDIA needs), then reboot.";
  f.commands = {"sudo nvidia-bug-report.sh --safe-mode --extra-system-data   # before the reboot",
                "sudo reboot   # after draining the node"};
  out.push_back(std::move(f));
  join_driver_wedged(out);
}

}  // namespace gt
