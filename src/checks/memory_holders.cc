// Memory held while idle: a large share of a GPU's memory allocated while
// its utilization stayed at 0 for the whole sample window. After a crash
// this is usually a server some unit or restart policy brought back (an
// inference server loads its weights and KV cache at start and sits on them),
// and it blocks the job that should resume. We name the holder and its
// owner, and give the commands that stop it and keep it from returning.
// Utilization is unknown in MIG mode, so nothing is claimed there.
#include <fmt/format.h>

#include <map>

#include "checks/checks.h"
#include "checks/holders.h"

namespace gt {
namespace {

std::string gb(uint64_t bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

bool idle_whole_window(const GpuState& g) {
  return g.utilization_gpu_pct && g.utilization_gpu_pct->max == 0;
}

Finding held_idle(const NodeSnapshot& s, const GpuState& g, const GpuProcess& top) {
  Finding f = gpu_finding("memory.held_idle", g);
  const std::string who = holder_label(top);
  f.subject.pid = top.pid;
  f.title = fmt::format("{}: {} held by {} (PID {}) at 0% utilization", gpu_label(g),
                        gb(*g.memory_used_bytes), who, top.pid);
  StopCommands c = stop_commands(top);
  f.evidence = fmt::format(
      "{} of {} used; utilization max 0% over {} samples in {:.1f} s; PID {} '{}' of user {}, "
      "{}",
      gb(*g.memory_used_bytes), gb(*g.memory_total_bytes), g.utilization_gpu_pct->samples,
      s.sample_window_s, top.pid, top.cmdline.value_or(top.name.value_or("?")),
      top.user.value_or("?"), c.owner_text);
  f.action = "If this " + who + " is not wanted, stop it so the job can use the GPU" +
             (c.disable.empty() ? "." : ", and disable it so it does not start again at boot.");
  if (s.source != "nvml")
    f.action +=
        " (From a capture: run this on the node it came from, where gpu-triage can also "
        "name the unit or container that owns it.)";
  f.commands = c.stop;
  f.commands.insert(f.commands.end(), c.disable.begin(), c.disable.end());
  return f;
}

Finding held_no_process(const GpuState& g) {
  Finding f = gpu_finding("memory.held_no_process", g);
  bool invisible = g.processes && !g.processes->empty();
  f.title = fmt::format(
      "{}: {} allocated but {}", gpu_label(g), gb(*g.memory_used_bytes),
      invisible ? "its processes are not visible in this PID namespace" : "NVML lists no process");
  f.evidence = fmt::format(
      "memory used {} of {}; NVML process list: {}", gb(*g.memory_used_bytes),
      gb(*g.memory_total_bytes),
      invisible ? std::to_string(g.processes->size()) + " PID(s) not in /proc" : "empty");
  if (invisible) {
    f.action =
        "NVML reports host PIDs; gpu-triage runs in another PID namespace. Run it on the "
        "host (or in a container with --pid=host) to see who holds the memory.";
    f.commands = {"sudo nsenter -t 1 -p -m gpu-triage", "docker run --pid=host ..."};
  } else {
    f.action =
        "A process in another namespace or a leftover (zombie) context holds it. Look for "
        "users of the device files; if none remain, reset the GPU while nothing uses it.";
    f.commands = {"sudo fuser -v /dev/nvidia*",
                  "sudo nvidia-smi --gpu-reset -i " + std::to_string(g.index)};
  }
  return f;
}

}  // namespace

void check_memory_holders(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) {
    if (g.status != GpuStatus::kOk || !g.memory_used_bytes || !g.memory_total_bytes ||
        *g.memory_total_bytes == 0 || !g.processes)
      continue;
    const double share = static_cast<double>(*g.memory_used_bytes) / *g.memory_total_bytes;
    if (share < o.idle_memory_share) continue;
    // In a capture nothing is "visible" (that node's /proc was not read),
    // but nvidia-smi named each process: that identifies the holder.
    const bool capture = s.source != "nvml";
    const GpuProcess* top = nullptr;
    for (const GpuProcess& p : *g.processes)
      if ((p.visible || (capture && p.cmdline)) &&
          (!top || p.used_memory_bytes.value_or(0) > top->used_memory_bytes.value_or(0)))
        top = &p;
    if (!top) {
      out.push_back(held_no_process(g));
    } else if (idle_whole_window(g)) {
      out.push_back(held_idle(s, g, *top));
    }
  }
}

}  // namespace gt
