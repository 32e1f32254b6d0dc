// Building the free plan from servers (model/server.h). Safety first: a
// server is only stopped whole, and only when everything its stop reaches
// lies inside the selection (or --whole-server widens it); --pid signals
// exactly the chosen PIDs and refuses when one of them would take other
// holders with it. PID 1, gpu-triage itself and its ancestors, kernel
// threads, processes not visible in this PID namespace, and (unless we are
// root) other users' processes are refused, each with its reason.
#include "free/free_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "free/free_hint.h"
#include "holders/identity.h"
#include "model/limits.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/server_tree.h"
#include "sources/procfs/servers.h"
#include "util/index_list.h"
#include "util/numeric.h"

namespace gt {
namespace {

bool selected(const FreeOptions& o, uint32_t index) {
  return !o.gpus || std::find(o.gpus->begin(), o.gpus->end(), index) != o.gpus->end();
}

bool listed(const std::vector<uint32_t>& v, uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

const GpuProcess* process_at(const NodeSnapshot& s, uint32_t pid) {
  for (const GpuState& g : s.gpus)
    if (g.processes)
      for (const GpuProcess& p : *g.processes)
        if (p.pid == pid) return &p;
  return nullptr;
}

std::string describe(const ServerMember& m) {
  return "PID " + std::to_string(m.pid) + " (" + m.cmdline.value_or(m.name.value_or("?")) + ")";
}

/// Whether `pid` is `ancestor` or below it (parents read under root).
bool under(const FsRoot& root, uint32_t pid, uint32_t ancestor) {
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    if (pid == ancestor) return true;
    std::optional<ProcInfo> p = read_proc(root, pid);
    if (!p) return false;
    pid = p->ppid;
  }
  return false;
}

/// The members a stop would take: with --pid, those at or below a chosen
/// PID; otherwise the whole server.
std::vector<const ServerMember*> affected(const Server& sv, const FsRoot& root,
                                          const FreeOptions& o) {
  std::vector<const ServerMember*> out;
  for (const ServerMember& m : sv.members) {
    bool hit = o.pids.empty();
    for (uint32_t p : o.pids) hit = hit || under(root, m.pid, p);
    if (hit) out.push_back(&m);
  }
  return out;
}

/// The stop of a server through its owner takes every server of that owner.
std::vector<const Server*> same_owner(const std::vector<Server>& all, const Server& sv) {
  std::vector<const Server*> out;
  for (const Server& x : all)
    if (x.owner_kind == sv.owner_kind && x.owner_name == sv.owner_name) out.push_back(&x);
  return out;
}

/// GPUs and PIDs a stop reaches beyond the selection, in words; empty when none.
std::string beyond_selection(const std::vector<const ServerMember*>& reach, const FreeOptions& o,
                             const std::vector<uint32_t>& chosen_pids) {
  std::vector<uint32_t> gpus, pids;
  for (const ServerMember* m : reach) {
    bool outside = false;
    for (const auto& [index, bytes] : m->memory)
      if (!selected(o, index)) {
        gpus.push_back(index);
        outside = true;
      }
    if (!o.pids.empty() && !listed(chosen_pids, m->pid)) outside = true;
    if (outside) pids.push_back(m->pid);
  }
  if (pids.empty()) return "";
  std::sort(pids.begin(), pids.end());
  std::string text = "stopping it would also stop PID";
  text += pids.size() == 1 ? " " : "s ";
  for (size_t i = 0; i < pids.size(); ++i) text += (i ? ", " : "") + std::to_string(pids[i]);
  if (!gpus.empty())
    text += " on GPU" + std::string(gpus.size() == 1 ? " " : "s ") + format_index_list(gpus);
  return text + ", outside the selection; widen it with " +
         free_command_adding(o, {"--whole-server"}) + " (or select those too)";
}

ProcId id_of(const FsRoot& root, uint32_t pid) {
  std::optional<ProcInfo> info = read_proc(root, pid);
  return ProcId{pid, info ? info->start_ticks : 0};
}

bool has(const std::vector<ProcId>& v, uint32_t pid) {
  return std::any_of(v.begin(), v.end(), [&](const ProcId& x) { return x.pid == pid; });
}

/// How many parents `pid` has up to init: outermost first is fewest first.
int depth(const FsRoot& root, uint32_t pid) {
  int d = 0;
  for (; d < 64 && pid > 1; ++d) {
    std::optional<ProcInfo> p = read_proc(root, pid);
    if (!p) break;
    pid = p->ppid;
  }
  return d;
}

void outermost_first(const FsRoot& root, std::vector<ProcId>& ids) {
  std::vector<std::pair<int, ProcId>> by;
  for (const ProcId& id : ids) by.push_back({depth(root, id.pid), id});
  std::stable_sort(by.begin(), by.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = by[i].second;
}

/// The --pid PIDs this server's stop concerns: at or above its launcher, or
/// at or above one of its members.
std::vector<ProcId> named_for(const FsRoot& root, uint32_t top,
                              const std::vector<const ServerMember*>& reach, const FreeOptions& o) {
  std::vector<ProcId> out;
  for (uint32_t p : o.pids) {
    bool related = under(root, top, p) || under(root, p, top) ||
                   std::any_of(reach.begin(), reach.end(),
                               [&](const ServerMember* m) { return under(root, m->pid, p); });
    if (related && !has(out, p)) out.push_back(id_of(root, p));
  }
  outermost_first(root, out);
  return out;
}

/// A whole stop: SIGTERM to the named PIDs above the launcher (a supervisor),
/// the wrappers, then the launcher (each worker when it exited); every
/// process below them gets SIGKILL after the grace period if still running.
void whole_stop(const Server& sv, const FsRoot& root, const std::vector<ProcId>& named,
                TreeTarget& t) {
  std::vector<std::string> first;
  for (const ProcId& id : named)
    if (id.pid != t.root.pid && under(root, t.root.pid, id.pid) &&
        std::none_of(sv.wrappers.begin(), sv.wrappers.end(),
                     [&](const ServerProcess& w) { return w.pid == id.pid; })) {
      t.signal.push_back(id);
      first.push_back(
          fmt::format("kill {}   # SIGTERM first to PID {}, named with --pid", id.pid, id.pid));
    }
  for (const ServerProcess& w : sv.wrappers) t.signal.push_back(id_of(root, w.pid));
  if (sv.launcher_exited)
    t.signal.insert(t.signal.end(), t.holders.begin(), t.holders.end());
  else
    t.signal.push_back(t.root);
  const ProcTable table = read_proc_table(root);
  std::vector<uint32_t> below;
  for (const ProcId& id : t.signal) {
    std::vector<uint32_t> d = descendants(table, id.pid);
    below.insert(below.end(), d.begin(), d.end());
  }
  for (const ProcId& h : t.holders) below.push_back(h.pid);
  for (uint32_t pid : below) {
    if (has(t.signal, pid) || has(t.tree, pid)) continue;
    if (auto e = table.procs.find(pid); e != table.procs.end())
      t.tree.push_back({pid, e->second.start_ticks});
    else if (read_proc(root, pid))
      t.tree.push_back(id_of(root, pid));
  }
  t.kill = t.signal;
  t.kill.insert(t.kill.end(), t.tree.begin(), t.tree.end());
  if (!first.empty() && !t.stop.via_owner) {
    t.stop.stop.insert(t.stop.stop.begin(), first.begin(), first.end());
    t.report_commands = false;
  }
}

/// An exact stop (--pid without --whole-server): SIGTERM and, after the
/// grace period, SIGKILL to exactly the named PIDs, outermost first.
void exact_stop(const std::vector<ProcId>& named, TreeTarget& t) {
  t.whole = false;
  t.signal = named;
  t.kill = named;
  if (t.stop.via_owner) return;
  std::string list;
  for (const ProcId& id : t.signal) list += (list.empty() ? "" : " ") + std::to_string(id.pid);
  t.stop.stop = {"kill " + list + "   # SIGTERM to exactly the chosen PIDs"};
  t.report_commands = false;
}

TreeTarget target_of(const NodeSnapshot& snap, const Server& sv,
                     const std::vector<const ServerMember*>& reach, const FsRoot& root,
                     const FreeOptions& o, bool exact_pids) {
  TreeTarget t;
  t.server_id = sv.id;
  t.label = sv.kind;
  t.noun = server_noun(sv.kind, sv.recognised);
  t.user = sv.user;
  t.since_unix_s = sv.start_time_unix_s;
  t.owner_kind = sv.owner_kind;
  t.owner_name = sv.owner_name;
  // A container a unit creates is stopped and disabled through the unit
  // (its stop says so): stopping the container alone, the unit makes a new one.
  if (sv.container && sv.container->created_by_unit) {
    t.owner_kind = OwnerKind::kSystemdUnit;
    t.owner_name = *sv.container->created_by_unit;
  }
  t.restart_policy = sv.restart_policy;
  t.stop = server_stop(sv, o.via_owner, o.force_signal);
  uint32_t top = sv.root_pid.value_or(sv.members.front().pid);
  t.root = id_of(root, top);
  t.root_cmdline = sv.root_cmdline.value_or(sv.members.front().cmdline.value_or(""));
  for (const ServerMember* m : reach) {
    t.holders.push_back(id_of(root, m->pid));
    for (const auto& [index, bytes] : m->memory) {
      if (!listed(t.gpus, index)) t.gpus.push_back(index);
      t.bytes += bytes.value_or(0);
    }
  }
  std::sort(t.gpus.begin(), t.gpus.end());
  for (uint32_t index : t.gpus) {
    const GpuState* g = gpu_by_index(snap, index);
    std::optional<bool> i = g ? idle_over_window(*g) : std::nullopt;
    if (!i) {
      t.idle = std::nullopt;
      break;
    }
    t.idle = t.idle.value_or(true) && *i;
  }
  t.wrappers = sv.wrappers;
  t.supervisor = sv.supervisor;
  t.launcher_exited = sv.launcher_exited;
  const std::vector<ProcId> named = named_for(root, top, reach, o);
  if (exact_pids)
    exact_stop(named, t);
  else
    whole_stop(sv, root, named, t);
  const bool container_init =
      t.supervisor && sv.container && sv.container->init_pid == t.supervisor->pid;
  if (t.supervisor)
    t.supervisor_role =
        has(t.signal, t.supervisor->pid)
            ? "named with --pid: SIGTERM to it first, then to this server"
        : container_init
            // A container's PID 1 ignores a signal it has no handler for, and
            // ending it ends the container: never the advice.
            ? "its container's PID 1: not stopped here (stopping it would end the container "
              "and all it runs)"
            : "it runs other processes or servers too, or restarts them: not stopped here; "
              "select it with " +
                  whole_server_command(t.supervisor->pid) +
                  "; if it starts this server again, stop it that way";
  // The report's plan is the stop without --via-owner or --signal.
  if (t.report_commands && (o.via_owner || o.force_signal))
    t.report_commands = server_stop(sv, false, false).all() == t.stop.all();
  return t;
}

/// The safety rules for each process a signal goes to.
std::optional<Refusal> unsafe(const FsRoot& root, const Self& self, const NodeSnapshot& snap,
                              const ProcId& id, const std::string& what) {
  if (const GpuProcess* p = process_at(snap, id.pid); p && !p->visible)
    return Refusal{id.pid, what, "not visible in this PID namespace (run gpu-triage on the host)"};
  std::optional<ProcInfo> info = read_proc(root, id.pid);
  if (!info) return Refusal{id.pid, what, "it exited or cannot be read"};
  if (std::optional<std::string> why = refusal_reason(*info, self.tree, self.pid, self.euid))
    return Refusal{id.pid, what, *why};
  return std::nullopt;
}

/// GPUs whose process list is not known in full (lost, hung, the query
/// failed or was cut short): a launcher or owner stop could reach holders
/// there that nobody has seen.
std::vector<uint32_t> unknown_lists(const NodeSnapshot& snap) {
  std::vector<uint32_t> out;
  for (const GpuState& g : snap.gpus)
    if (g.status != GpuStatus::kOk || !g.processes || g.processes_error) out.push_back(g.index);
  return out;
}

/// --pid on some ranks of a group that runs as one (tensor parallel
/// workers): the others wait on them and hang or fail.
void warn_partial_group(const Server& sv, const std::vector<const ServerMember*>& reach,
                        const FsRoot& root, const FreeOptions& o, FreePlan& plan) {
  if (o.pids.empty() || o.whole_server || sv.members.size() < 2 ||
      reach.size() >= sv.members.size())
    return;
  const uint32_t top = sv.root_pid.value_or(0);
  for (uint32_t p : o.pids)
    if (top && under(root, top, p)) return;  // the launcher (or above) is named: it all stops
  std::vector<uint32_t> chosen, others, gpus;
  for (const ServerMember& m : sv.members) {
    (std::any_of(reach.begin(), reach.end(), [&](const ServerMember* r) { return r == &m; })
         ? chosen
         : others)
        .push_back(m.pid);
    for (const auto& [index, bytes] : m.memory)
      if (!listed(gpus, index)) gpus.push_back(index);
  }
  std::string list;
  for (uint32_t p : others) list += (list.empty() ? "" : ", ") + std::to_string(p);
  plan.warnings.push_back(fmt::format(
      "PID{} {} {} one rank of {} ({} processes{}): the other ranks (PIDs {}) will hang or fail "
      "without {}; stop the whole server with {} or {}",
      chosen.size() == 1 ? "" : "s", format_index_list(chosen), chosen.size() == 1 ? "is" : "are",
      server_noun(sv.kind, sv.recognised), sv.members.size(),
      sv.tensor_parallel ? ", TP=" + std::to_string(*sv.tensor_parallel) : std::string(), list,
      chosen.size() == 1 ? "it" : "them",
      whole_server_command(sv.root_pid.value_or(chosen.front())),
      free_command({"--gpus", gpus_arg(gpus)})));
}

/// An exact --pid stop of a launcher whose wrapper is not named: the
/// wrapper (a restart loop) would start it again. The refusal, if so.
std::optional<std::string> wrapper_left(const Server& sv, const FsRoot& root,
                                        const FreeOptions& o) {
  if (sv.wrappers.empty() || !sv.root_pid) return std::nullopt;
  bool stops_launcher = false;
  for (uint32_t p : o.pids) stops_launcher = stops_launcher || under(root, *sv.root_pid, p);
  if (!stops_launcher) return std::nullopt;
  for (const ServerProcess& w : sv.wrappers)
    if (!listed(o.pids, w.pid))
      return fmt::format(
          "its wrapper PID {} ('{}') would start it again; stop the whole server, the wrapper "
          "first, with {}",
          w.pid, w.cmdline.substr(0, 80), whole_server_command(*sv.root_pid));
  return std::nullopt;
}

/// Plans one server; appends a target, a refusal or a skip.
void plan_server(const NodeSnapshot& snap, const std::vector<Server>& all, const Server& sv,
                 const FsRoot& root, const FreeOptions& o, const Self& self, FreePlan& plan) {
  std::vector<const ServerMember*> reach = affected(sv, root, o);
  if (reach.empty()) return;
  bool touches = false;
  for (const ServerMember* m : reach)
    for (const auto& [index, bytes] : m->memory) touches = touches || selected(o, index);
  if (!touches && o.pids.empty()) return;
  const std::string what = fmt::format(
      "{} ({} process{}, root PID {})", server_noun(sv.kind, sv.recognised), sv.members.size(),
      sv.members.size() == 1 ? "" : "es", sv.root_pid.value_or(sv.members.front().pid));
  if (!gpus_from_nvidia_smi(snap.source))
    for (const ServerMember* m : reach)
      if (const GpuProcess* p = process_at(snap, m->pid); p && !p->visible) {
        plan.refusals.push_back({m->pid, describe(*m),
                                 "not visible in this PID namespace (run gpu-triage on the host)"});
        return;
      }
  ServerStop stop = server_stop(sv, o.via_owner, o.force_signal);
  // Through the owner, every server of that owner stops; by its GPUs, or by
  // --pid with --whole-server, the whole server.
  const bool exact = !o.pids.empty() && !o.whole_server && !stop.via_owner;
  std::vector<const ServerMember*> whole = reach;
  if (!exact) {
    whole.clear();
    for (const Server* x : stop.via_owner ? same_owner(all, sv) : std::vector<const Server*>{&sv})
      for (const ServerMember& m : x->members) whole.push_back(&m);
  }
  // Only a server idle over the whole window is stopped unless the
  // operator includes busy ones: in use, or not known to be idle.
  if (!o.include_busy)
    for (const ServerMember* m : whole)
      for (const auto& [index, bytes] : m->memory)
        if (const GpuState* g = gpu_by_index(snap, index); !g || idle_over_window(*g) != true) {
          plan.skipped.push_back(
              what + ": GPU " + std::to_string(index) +
              (g && idle_over_window(*g)
                   ? " is busy; a server in use is stopped only with " +
                         free_command_adding(o, {"--include-busy"})
                   : " was not sampled over a window, so it is not known to be idle (use " +
                         free_command_adding(o, {"--sample", "3s"}) + ", or " +
                         free_command_adding(o, {"--include-busy"}) + " to stop it anyway)"));
          return;
        }
  std::string beyond = beyond_selection(whole, o, o.pids);
  if (!beyond.empty() && !o.whole_server) {
    plan.refusals.push_back({sv.root_pid.value_or(sv.members.front().pid), what, beyond});
    return;
  }
  // A GPU outside the selection whose process list is not known in full may
  // hold this server's processes too: stopping it by its launcher or owner
  // could reach them. Only PIDs the operator names are signalled then.
  std::vector<uint32_t> unknown;
  for (uint32_t g : unknown_lists(snap))
    if (!selected(o, g)) unknown.push_back(g);
  if (!unknown.empty() && !exact) {
    std::vector<uint32_t> both = unknown;
    if (o.gpus) both.insert(both.end(), o.gpus->begin(), o.gpus->end());
    std::vector<std::string> by_pid;
    for (const ServerMember* m : whole) {
      by_pid.insert(by_pid.end(), {"--pid", std::to_string(m->pid)});
      for (const auto& [index, bytes] : m->memory) both.push_back(index);
    }
    plan.refusals.push_back(
        {sv.root_pid.value_or(sv.members.front().pid), what,
         "the process list of GPU" + std::string(unknown.size() == 1 ? " " : "s ") +
             format_index_list(unknown) +
             " (not selected) could not be read in full, so stopping this server could reach "
             "its processes there; select those GPUs too (" +
             free_command({"--gpus", gpus_arg(both)}) + ") or name its GPU processes (" +
             free_command(by_pid) + ")"});
    return;
  }
  if (stop.manual_only) {
    plan.refusals.push_back({sv.root_pid.value_or(sv.members.front().pid), what,
                             *stop.manual_only + ": " + stop.stop.front()});
    return;
  }
  if (exact)
    if (std::optional<std::string> why = wrapper_left(sv, root, o)) {
      plan.refusals.push_back({*sv.root_pid, what, *why});
      return;
    }
  TreeTarget t = target_of(snap, sv, exact ? reach : whole, root, o, exact);
  warn_partial_group(sv, reach, root, o, plan);
  // Taken whole by --whole-server: it reaches beyond what was selected.
  t.widened = o.whole_server &&
              (!beyond.empty() || std::any_of(t.kill.begin(), t.kill.end(), [&](const ProcId& id) {
                return !o.pids.empty() && !listed(o.pids, id.pid);
              }));
  // The safety rules hold for whatever a stop reaches: every PID signalled
  // or killed, and through an owner its root and every holder (never
  // gpu-triage's own ancestors, other users' unless root, kernel threads).
  std::vector<ProcId> checked;
  for (const ProcId& id : t.kill)
    if (has(t.signal, id.pid) || read_proc(root, id.pid))
      checked.push_back(id);  // one of the tree that exited is no danger
  if (t.stop.via_owner) {
    checked.insert(checked.end(), t.holders.begin(), t.holders.end());
    checked.push_back(t.root);
  }
  for (const ProcId& id : checked)
    if (std::optional<Refusal> r = unsafe(root, self, snap, id, what)) {
      plan.refusals.push_back(*r);
      return;
    }
  for (uint32_t g : t.gpus)
    if (!listed(plan.gpus, g)) plan.gpus.push_back(g);
  plan.targets.push_back(std::move(t));
}

}  // namespace

FreePlan make_free_plan(const NodeSnapshot& snap, const FsRoot& root, const FreeOptions& o,
                        const Self& self) {
  FreePlan plan;
  // With --pid alone the selection is those PIDs: their GPUs are added
  // with their targets below, not every GPU of the node.
  for (const GpuState& g : snap.gpus)
    if (selected(o, g.index) && (o.pids.empty() || o.gpus)) plan.gpus.push_back(g.index);
  if (o.gpus)
    for (uint32_t want : *o.gpus)
      if (!listed(plan.gpus, want))
        plan.errors.push_back("no GPU " + std::to_string(want) + " on this node");
  std::vector<Server> servers =
      snap.servers ? *snap.servers : group_servers(snap, &root).value_or(std::vector<Server>{});
  std::vector<uint32_t> seen;
  for (const Server& sv : servers) {
    for (const ServerMember& m : sv.members) seen.push_back(m.pid);
    if (sv.root_pid) seen.push_back(*sv.root_pid);
    plan_server(snap, servers, sv, root, o, self, plan);
  }
  for (const TreeTarget& t : plan.targets)
    for (const ProcId& id : t.signal) seen.push_back(id.pid);
  for (uint32_t pid : o.pids)
    if (!listed(seen, pid) && std::none_of(servers.begin(), servers.end(), [&](const Server& sv) {
          return std::any_of(sv.members.begin(), sv.members.end(),
                             [&](const ServerMember& m) { return under(root, m.pid, pid); });
        }))
      plan.refusals.push_back(
          {pid, "PID " + std::to_string(pid), "it holds no GPU memory and launched no holder"});
  std::sort(plan.gpus.begin(), plan.gpus.end());
  return plan;
}

Result<std::optional<std::vector<uint32_t>>> parse_gpu_list(const std::string& text) {
  if (text == "all") return std::optional<std::vector<uint32_t>>();
  auto bad = [&](const std::string& why) {
    std::string quoted = text.size() > 64 ? text.substr(0, 64) + "..." : text;
    return Error{ErrorKind::kMalformed, "invalid --gpus '" + quoted + "': " + why};
  };
  const std::string range = "0-" + std::to_string(kMaxGpus - 1);
  const std::string usage = "use 'all', indices " + range +
                            " like 0,2,4-7, UUIDs (GPU-...) or PCI bus ids (0000:19:00.0)";
  // Each index is checked against kMaxGpus before any loop, and the result
  // is a set of at most kMaxGpus: "4294967294-4294967295" or a list of a
  // million ranges cannot loop forever or allocate without bound.
  std::vector<bool> chosen(kMaxGpus, false);
  std::string_view rest = text;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    size_t dash = part.find('-');
    std::optional<uint32_t> a = parse_int<uint32_t>(part.substr(0, dash));
    std::optional<uint32_t> b =
        dash == std::string_view::npos ? a : parse_int<uint32_t>(part.substr(dash + 1));
    if (!a || !b || *b < *a) return bad(usage);
    if (*b >= kMaxGpus)
      return bad("GPU index " + std::to_string(*b) + " is out of range (indices are " + range +
                 ")");
    for (uint32_t i = *a; i <= *b; ++i) chosen[i] = true;  // *b < kMaxGpus: ends
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < kMaxGpus; ++i)
    if (chosen[i]) out.push_back(i);
  return std::optional<std::vector<uint32_t>>(out);
}

bool gpu_is_free(const GpuState& g) {
  if (g.status != GpuStatus::kOk || !g.memory_used_bytes || !g.memory_total_bytes) return false;
  bool no_procs = g.processes && g.processes->empty();
  return no_procs && *g.memory_used_bytes * 50 < *g.memory_total_bytes;
}

}  // namespace gt
