// Building the free plan. Safety first: a process is only ever a target if
// it holds memory on a selected GPU or is the root of a tree whose members
// do; PID 1, gpu-triage itself and its ancestors, kernel threads, processes
// not visible in this PID namespace, and (unless we are root) other users'
// processes are refused, each with its reason.
#include "free/free_plan.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "free/process_tree.h"

namespace gt {
namespace {

bool selected(const FreeOptions& o, uint32_t index) {
  return !o.gpus || std::find(o.gpus->begin(), o.gpus->end(), index) != o.gpus->end();
}

bool wanted_pid(const FreeOptions& o, uint32_t pid) {
  return o.pids.empty() || std::find(o.pids.begin(), o.pids.end(), pid) != o.pids.end();
}

std::string describe(const GpuProcess& p) {
  return "PID " + std::to_string(p.pid) + " (" + p.cmdline.value_or(p.name.value_or("?")) + ")";
}

bool idle(const GpuState& g) { return g.utilization_gpu_pct && g.utilization_gpu_pct->max == 0; }

/// Adds holder `p` on GPU `g` to the target of its tree root, creating it.
void add_holder(const FsRoot& root, const Self& self, const GpuState& g, const GpuProcess& p,
                std::optional<ProcInfo> info, std::vector<TreeTarget>& targets) {
  uint32_t top = tree_root(root, p.pid, self.tree);
  auto it = std::find_if(targets.begin(), targets.end(),
                         [&](const TreeTarget& t) { return t.root.pid == top; });
  if (it == targets.end()) {
    TreeTarget t;
    std::optional<ProcInfo> r = top == p.pid ? info : read_proc(root, top);
    t.root = {top, r ? r->start_ticks : 0};
    t.root_cmdline = r ? r->cmdline : p.cmdline.value_or("");
    t.user = p.user;
    t.since_unix_s = p.start_time_unix_s;
    t.label = holder_label(p);
    t.owner = p.owner;
    t.durable = stop_commands(p);
    if (p.owner && p.owner->kind == "systemd-unit")
      t.restart_policy = unit_restart_policy(root, p.owner->name);
    targets.push_back(t);
    it = targets.end() - 1;
  }
  if (std::none_of(it->holders.begin(), it->holders.end(),
                   [&](const ProcId& h) { return h.pid == p.pid; }))
    it->holders.push_back({p.pid, info ? info->start_ticks : 0});
  if (std::find(it->gpus.begin(), it->gpus.end(), g.index) == it->gpus.end())
    it->gpus.push_back(g.index);
  it->bytes += p.used_memory_bytes.value_or(0);
  it->idle = it->idle && idle(g);
}

/// Checks one holder (and later its root) against the safety rules.
std::optional<std::string> check(const FsRoot& root, const Self& self, const GpuProcess& p,
                                 std::optional<ProcInfo>& info) {
  if (!p.visible) return "not visible in this PID namespace (run gpu-triage on the host)";
  info = read_proc(root, p.pid);
  if (!info) return "it exited or cannot be read";
  return refusal_reason(*info, self.tree, self.pid, self.euid);
}

}  // namespace

FreePlan make_free_plan(const NodeSnapshot& snap, const FsRoot& root, const FreeOptions& o,
                        const Self& self) {
  FreePlan plan;
  for (const GpuState& g : snap.gpus)
    if (selected(o, g.index)) plan.gpus.push_back(g.index);
  if (o.gpus)
    for (uint32_t want : *o.gpus)
      if (std::find(plan.gpus.begin(), plan.gpus.end(), want) == plan.gpus.end())
        plan.errors.push_back("no GPU " + std::to_string(want) + " on this node");
  std::set<uint32_t> seen_pids;
  for (const GpuState& g : snap.gpus) {
    if (!selected(o, g.index) || !g.processes) continue;
    if (o.idle_only && !idle(g)) {
      plan.skipped.push_back("GPU " + std::to_string(g.index) + " is busy (--idle-only)");
      continue;
    }
    for (const GpuProcess& p : *g.processes) {
      seen_pids.insert(p.pid);
      if (!wanted_pid(o, p.pid)) {
        plan.skipped.push_back(describe(p) + " on GPU " + std::to_string(g.index) +
                               " (not in --pid)");
        continue;
      }
      std::optional<ProcInfo> info;
      if (std::optional<std::string> why = check(root, self, p, info)) {
        plan.refusals.push_back({p.pid, describe(p), *why});
        continue;
      }
      add_holder(root, self, g, p, info, plan.targets);
    }
  }
  for (uint32_t pid : o.pids)
    if (!seen_pids.count(pid))
      plan.refusals.push_back(
          {pid, "PID " + std::to_string(pid), "it does not hold memory on the selected GPUs"});
  // The root of a tree is checked like a holder: a launcher of another user,
  // say, makes the whole tree a refusal.
  for (auto it = plan.targets.begin(); it != plan.targets.end();) {
    std::optional<ProcInfo> r = read_proc(root, it->root.pid);
    std::optional<std::string> why =
        r ? refusal_reason(*r, self.tree, self.pid, self.euid) : std::string("it exited");
    if (!why) {
      ++it;
      continue;
    }
    plan.refusals.push_back({it->root.pid,
                             "PID " + std::to_string(it->root.pid) + " (" + it->root_cmdline + ")",
                             *why});
    it = plan.targets.erase(it);
  }
  return plan;
}

std::optional<std::string> unit_restart_policy(const FsRoot& root, const std::string& unit) {
  for (const char* dir : {"/etc/systemd/system/", "/run/systemd/system/", "/lib/systemd/system/",
                          "/usr/lib/systemd/system/"}) {
    Result<std::string> text = root.read(std::string(dir) + unit);
    if (!text) continue;
    std::istringstream lines(*text);
    std::string line, found = "Restart=no";
    while (std::getline(lines, line))
      if (line.rfind("Restart=", 0) == 0) found = line;
    return found;
  }
  return std::nullopt;
}

Result<std::optional<std::vector<uint32_t>>> parse_gpu_list(const std::string& text) {
  if (text == "all") return std::optional<std::vector<uint32_t>>();
  std::vector<uint32_t> out;
  std::istringstream parts(text);
  std::string part;
  auto bad = [&] {
    return Error{ErrorKind::kMalformed,
                 "invalid --gpus '" + text + "': use 'all' or indices like 0,2,4-7"};
  };
  auto num = [](std::string_view s, uint32_t& v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  while (std::getline(parts, part, ',')) {
    size_t dash = part.find('-');
    uint32_t a = 0, b = 0;
    if (dash == std::string::npos) {
      if (!num(part, a)) return bad();
      out.push_back(a);
    } else {
      if (!num(std::string_view(part).substr(0, dash), a) ||
          !num(std::string_view(part).substr(dash + 1), b) || b < a || b - a > 1024)
        return bad();
      for (uint32_t i = a; i <= b; ++i) out.push_back(i);
    }
  }
  if (out.empty()) return bad();
  return std::optional<std::vector<uint32_t>>(out);
}

bool gpu_is_free(const GpuState& g) {
  if (g.status != GpuStatus::kOk || !g.memory_used_bytes || !g.memory_total_bytes) return false;
  bool no_procs = g.processes && g.processes->empty();
  return no_procs && *g.memory_used_bytes * 50 < *g.memory_total_bytes;
}

}  // namespace gt
