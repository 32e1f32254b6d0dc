// Memory held while idle, one finding per cause: a server (model/server.h)
// that holds a large share of some GPU's memory while every GPU it holds
// stayed at 0% utilization in every sample of the window. After a crash this
// is usually a server a unit or restart policy brought back (an inference
// server loads its weights and KV cache at start and sits on them), and it
// blocks the job that should resume. The finding names the server, its
// owner, its GPUs and its own memory on each, and gives the same commands
// `gpu-triage free` would run (holders/stop.h).
//
// Never idle: graphics-only servers (display servers, compositors,
// browsers), servers on a GPU whose utilization is unknown (MIG), and any
// server when utilization was sampled fewer than kMinIdleSamples times
// (--sample 0): then nothing is claimed. Memory no visible process holds is
// judged per GPU (memory.held_no_process).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks/checks.h"
#include "holders/identity.h"
#include "holders/stop.h"
#include "util/index_list.h"
#include "util/plural.h"

namespace gt {
namespace {

/// Every GPU of the server was sampled often enough and read 0 each time.
bool idle_whole_window(const NodeSnapshot& s, const Server& sv) {
  for (const ServerGpu& sg : sv.gpus) {
    const GpuState* g = gpu_by_index(s, sg.index);
    if (!g || idle_over_window(*g) != true) return false;
  }
  return !sv.gpus.empty();
}

/// Memory the non-graphics servers hold on GPU `index` (a server whose
/// sizes NVML did not report counts the GPU's used memory when it is the
/// GPU's only holder).
std::optional<uint64_t> compute_memory_on(const NodeSnapshot& s, uint32_t index) {
  const GpuState* g = gpu_by_index(s, index);
  std::optional<uint64_t> sum;
  for (const Server& sv : *s.servers) {
    if (sv.graphics_only) continue;
    for (const ServerGpu& sg : sv.gpus) {
      if (sg.index != index) continue;
      std::optional<uint64_t> bytes = sg.memory_bytes;
      if (!bytes && g && g->processes && g->processes->size() == 1) bytes = g->memory_used_bytes;
      if (bytes) sum = sum.value_or(0) + *bytes;
    }
  }
  return sum;
}

/// Some GPU of the server has at least `share` of its memory held by
/// compute servers: then every idle compute holder there is named, the
/// small ones too (they hold the GPU as much as the large one).
bool on_a_held_gpu(const NodeSnapshot& s, const Server& sv, double share) {
  for (const ServerGpu& sg : sv.gpus) {
    const GpuState* g = gpu_by_index(s, sg.index);
    if (!g || !g->memory_total_bytes || *g->memory_total_bytes == 0) continue;
    std::optional<uint64_t> held = compute_memory_on(s, sg.index);
    if (held && static_cast<double>(*held) / *g->memory_total_bytes >= share) return true;
  }
  return false;
}

/// "75.8 GB each" style memory text over the server's GPUs (binary units).
std::string memory_text(const Server& sv) {
  std::vector<uint64_t> known;
  for (const ServerGpu& g : sv.gpus)
    if (g.memory_bytes) known.push_back(*g.memory_bytes);
  if (known.empty()) return "memory per process not reported";
  auto [lo, hi] = std::minmax_element(known.begin(), known.end());
  if (sv.gpus.size() == 1) return format_memory(*hi);
  if (format_memory(*lo) == format_memory(*hi) && known.size() == sv.gpus.size())
    return format_memory(*hi) + " each";
  return format_memory(*lo) + " to " + format_memory(*hi) + " each";
}

std::string gpu_list(const Server& sv) {
  std::vector<uint32_t> v;
  for (const ServerGpu& g : sv.gpus) v.push_back(g.index);
  return (v.size() == 1 ? "GPU " : "GPUs ") + format_index_list(v);
}

std::string describe_server(const Server& sv, const ServerStop& stop) {
  std::string who = server_noun(sv.kind, sv.recognised);
  std::vector<std::string> about;
  if (sv.owner_kind && *sv.owner_kind != OwnerKind::kCgroup &&
      *sv.owner_kind != OwnerKind::kUserSession) {
    std::string o = stop.owner_text;
    if (sv.auto_started && sv.started_after_boot_s)
      o += fmt::format(", started {} s after boot", *sv.started_after_boot_s);
    about.push_back(o);
  }
  if (sv.model) about.push_back("model " + *sv.model);
  if (sv.port) about.push_back(fmt::format("port {}", *sv.port));
  std::string text = who;
  if (!about.empty()) {
    text += " (";
    for (size_t i = 0; i < about.size(); ++i) text += (i ? ", " : "") + about[i];
    text += ")";
  }
  if (sv.tensor_parallel) text += fmt::format(", TP={}", *sv.tensor_parallel);
  if (sv.data_parallel) text += fmt::format(", DP={}", *sv.data_parallel);
  if (sv.pipeline_parallel) text += fmt::format(", PP={}", *sv.pipeline_parallel);
  return text;
}

Finding held_idle(const NodeSnapshot& s, const Server& sv) {
  Finding f;
  f.id = "memory.held_idle";
  f.severity = Severity::kWarning;
  f.subject.kind = "server";
  f.subject.server_id = sv.id;
  f.subject.pid = sv.root_pid ? sv.root_pid : std::optional<uint32_t>(sv.members.front().pid);
  if (sv.gpus.size() == 1) {
    f.subject.gpu_index = sv.gpus.front().index;
    if (const GpuState* g = gpu_by_index(s, sv.gpus.front().index)) {
      f.subject.gpu_uuid = g->uuid;
      f.subject.pci_bus_id = g->pci_bus_id;
    }
  }
  ServerStop stop = server_stop(sv, false, false);
  int samples = 0;
  for (const ServerGpu& g : sv.gpus)
    if (const GpuState* gs = gpu_by_index(s, g.index); gs && gs->utilization_gpu_pct)
      samples = std::max(samples, gs->utilization_gpu_pct->samples);
  f.title =
      fmt::format("{} over {}, {}, 0% utilization for the whole {:.1f} s window",
                  describe_server(sv, stop), gpu_list(sv), memory_text(sv), s.sample_window_s);
  std::string pids;
  for (const ServerMember& m : sv.members)
    pids += (pids.empty() ? "" : ", ") + std::to_string(m.pid);
  f.evidence = fmt::format(
      "{} ({} {}){}; utilization 0% in all {} samples of every GPU; user {}; {}{}",
      count_of(sv.members.size(), "process", "processes"), plural(sv.members.size(), "PID", "PIDs"),
      pids,
      sv.root_pid
          ? fmt::format(" under launcher PID {} '{}'", *sv.root_pid, sv.root_cmdline.value_or("?"))
          : std::string(),
      samples, sv.user.value_or("unknown"), stop.owner_text,
      sv.restart_policy ? " (" + *sv.restart_policy + ")" : std::string());
  const std::string who = server_noun(sv.kind, sv.recognised);
  f.action = "If this " + who + " is not wanted, stop it so the job can use its GPUs" +
             (stop.disable.empty() ? "." : ", and disable it so it does not start again.");
  if (stop.via_owner && sv.restarts_when_signalled)
    f.action += " Its owner restarts what a signal stops, so stop the owner.";
  if (!stop.note.empty()) f.action += " " + stop.note;
  if (gpus_from_nvidia_smi(s.source))
    f.action +=
        " (From a capture: run gpu-triage on the node it came from, where it can also read "
        "the process tree and name the unit or container that owns it.)";
  f.commands = stop.all();
  return f;
}

/// A capture's GPU whose processes have PIDs but no names: the capture
/// cannot say more, and this machine's PID namespace has nothing to do with it.
void unnamed_in_capture(const GpuState& g, Finding& f) {
  std::string pids;
  for (const GpuProcess& p : *g.processes)
    pids += (pids.empty() ? "" : ",") + std::to_string(p.pid);
  const size_t n = g.processes->size();
  f.title = fmt::format("{}: {} allocated by {} the capture does not name", gpu_label(g),
                        format_memory(*g.memory_used_bytes), plural(n, "a process", "processes"));
  f.evidence = fmt::format("memory used {} of {}; the capture lists {} {} with no name",
                           format_memory(*g.memory_used_bytes),
                           format_memory(*g.memory_total_bytes), plural(n, "PID", "PIDs"), pids);
  f.action =
      "These are PIDs on the captured node; its /proc was not read. Look them up there (or "
      "run gpu-triage on that node) to see who holds the memory.";
  f.commands = {"ps -o pid,user,lstart,args -p " + pids};
}

Finding held_no_process(const NodeSnapshot& s, const GpuState& g) {
  Finding f = gpu_finding("memory.held_no_process", g);
  bool invisible = g.processes && !g.processes->empty();
  if (invisible && gpus_from_nvidia_smi(s.source)) {
    unnamed_in_capture(g, f);
    return f;
  }
  f.title = fmt::format(
      "{}: {} allocated but {}", gpu_label(g), format_memory(*g.memory_used_bytes),
      invisible ? "its processes are not visible in this PID namespace" : "NVML lists no process");
  f.evidence = fmt::format(
      "memory used {} of {}; NVML process list: {}", format_memory(*g.memory_used_bytes),
      format_memory(*g.memory_total_bytes),
      invisible ? count_of(g.processes->size(), "PID", "PIDs") + " not in /proc" : "empty");
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

/// A holder that can be named: visible here, or named by a capture.
bool nameable(const NodeSnapshot& s, const GpuProcess& p) {
  return p.visible || (gpus_from_nvidia_smi(s.source) && (p.cmdline || p.name));
}

}  // namespace

void check_memory_holders(const NodeSnapshot& s, const CheckOptions& o, std::vector<Finding>& out) {
  // Per GPU: memory no nameable process accounts for.
  for (const GpuState& g : s.gpus) {
    if (g.status != GpuStatus::kOk || !g.memory_used_bytes || !g.memory_total_bytes ||
        *g.memory_total_bytes == 0 || !g.processes)
      continue;
    const double share = static_cast<double>(*g.memory_used_bytes) / *g.memory_total_bytes;
    if (share < o.idle_memory_share) continue;
    if (std::none_of(g.processes->begin(), g.processes->end(),
                     [&](const GpuProcess& p) { return nameable(s, p); }))
      out.push_back(held_no_process(s, g));
  }
  if (!s.servers) return;
  // Per server: one finding for all its GPUs.
  for (const Server& sv : *s.servers) {
    if (sv.graphics_only || sv.gpus.empty()) continue;
    bool named = false;
    for (const ServerGpu& sg : sv.gpus)
      if (const GpuState* g = gpu_by_index(s, sg.index); g && g->processes)
        for (const GpuProcess& p : *g->processes)
          for (const ServerMember& m : sv.members)
            named = named || (p.pid == m.pid && nameable(s, p));
    if (!named) continue;
    if (on_a_held_gpu(s, sv, o.idle_memory_share) && idle_whole_window(s, sv))
      out.push_back(held_idle(s, sv));
  }
}

}  // namespace gt
