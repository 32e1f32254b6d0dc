// Signals go through pidfds (Linux 5.3+): pidfd_open pins one process, so
// after checking that /proc/PID/stat's start time is the one we planned
// with, every later signal reaches that process or nobody, even if the PID
// is reused meanwhile. Exit is seen by poll() on the pidfd. Memory release
// is seen through NVML: a GPU is released when none of the tree's holders
// is in its process list any more.
#include "free/free_act.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "free/free_hint.h"
#include "holders/stop.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/server_tree.h"
#include "util/errno_error.h"
#include "util/index_list.h"

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;

int pidfd_open_sys(uint32_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

int pidfd_signal(int fd, int sig) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0));
}

bool exited(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

struct Handle {
  int fd = -1;
  ProcId id;
  bool killable = true;  ///< the plan names it for SIGKILL after the grace period
  bool whole = true;     ///< of a tree stopped whole: what starts below it is killed too
};

bool holds_any(const GpuState& g, const std::vector<ProcId>& holders) {
  if (!g.processes) return false;
  for (const GpuProcess& p : *g.processes)
    for (const ProcId& h : holders)
      if (p.pid == h.pid) return true;
  return false;
}

std::string reset_recipe(const GpuState& g) {
  std::string i = std::to_string(g.index);
  return "GPU " + i + " still has " + format_memory(g.memory_used_bytes) +
         " allocated with no process holding it (a zombie context, or a holder in another "
         "PID namespace). To reset it, first make sure nothing uses it: stop "
         "nvidia-persistenced, the DCGM host engine and, on NVSwitch systems, Fabric Manager "
         "(`sudo systemctl stop nvidia-persistenced nvidia-dcgm nvidia-fabricmanager`), turn "
         "persistence mode off (`sudo nvidia-smi -pm 0 -i " +
         i +
         "`), then `sudo nvidia-smi "
         "--gpu-reset -i " +
         i + "`; if the reset is refused, reboot. (Not run by gpu-triage.)";
}

enum class OwnerStop { kNotApplicable, kDone, kFailed };

std::string joined(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd;
}

/// Runs one command of the plan; says what happened either way.
bool run_command(const std::vector<std::string>& argv, std::chrono::milliseconds limit,
                 const CommandRunner& runner, FreeResult& r) {
  const std::string cmd = joined(argv);
  CommandResult res = runner.run(argv, limit);
  if (res.spawn_error || res.timed_out || res.exit_code != 0) {
    std::string err = res.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    r.failures.push_back(cmd + " failed: " +
                         (res.spawn_error ? *res.spawn_error
                          : res.timed_out ? std::string("timed out")
                                          : "exit " + std::to_string(res.exit_code) +
                                                (err.empty() ? "" : ": " + err.substr(0, 300))));
    return false;
  }
  r.actions.push_back("ran " + cmd);
  return true;
}

/// The owner's stop as gpu-triage runs it; empty when it cannot.
std::vector<std::string> owner_stop_argv(const TreeTarget& t, const FreeOptions& o) {
  if (!t.owner_kind || !t.owner_name) return {};
  const std::string grace_s = std::to_string(std::max<int64_t>(1, o.grace.count() / 1000));
  if (*t.owner_kind == OwnerKind::kSystemdUnit) return {"systemctl", "stop", *t.owner_name};
  if (*t.owner_kind == OwnerKind::kDocker || *t.owner_kind == OwnerKind::kPodman)
    return {owner_kind_name(*t.owner_kind), "stop", "-t", grace_s, *t.owner_name};
  return {};
}

/// The durable fix as gpu-triage runs it; empty when it cannot.
std::vector<std::string> owner_disable_argv(const TreeTarget& t) {
  if (!t.owner_kind || !t.owner_name) return {};
  if (*t.owner_kind == OwnerKind::kSystemdUnit) return {"systemctl", "disable", *t.owner_name};
  if (*t.owner_kind == OwnerKind::kDocker || *t.owner_kind == OwnerKind::kPodman)
    return {owner_kind_name(*t.owner_kind), "update", "--restart=no", *t.owner_name};
  return {};
}

/// Stops a target through its owner.
OwnerStop stop_via_owner(const TreeTarget& t, const FreeOptions& o, const CommandRunner& runner,
                         FreeResult& r) {
  std::vector<std::string> argv = owner_stop_argv(t, o);
  if (argv.empty()) return OwnerStop::kNotApplicable;
  if (run_command(argv, o.grace + std::chrono::seconds(15), runner, r)) return OwnerStop::kDone;
  std::string todo;
  for (const std::string& c : t.stop.all()) todo += (todo.empty() ? "`" : "`, `") + c;
  r.failures.push_back("nothing was signalled in its place (" + t.stop.owner_text +
                       " would start it again); run " + todo +
                       "` yourself where it can be reached, or " +
                       free_command_adding(o, {"--signal"}) + " to signal its processes anyway");
  return OwnerStop::kFailed;
}

/// The durable fix of a target whose stop was done: every disable command
/// of the plan, run or handed to the operator.
void disable(const TreeTarget& t, const CommandRunner& runner, FreeResult& r) {
  if (!t.stop.note.empty()) r.manual.push_back(t.stop.note);
  if (t.stop.disable.empty()) return;
  std::vector<std::string> argv = owner_disable_argv(t);
  if (argv.empty()) {
    for (const std::string& c : t.stop.disable) r.manual.push_back(c);
    return;
  }
  run_command(argv, std::chrono::seconds(30), runner, r);
}

void close_all(std::vector<Handle>& hs) {
  for (Handle& h : hs) ::close(h.fd);
  hs.clear();
}

bool in(const std::vector<ProcId>& v, uint32_t pid) {
  return std::any_of(v.begin(), v.end(), [&](const ProcId& x) { return x.pid == pid; });
}

/// What PID `pid` is in target `t`'s stop, for the record of what was sent.
std::string signal_role(const TreeTarget& t, uint32_t pid) {
  if (std::any_of(t.wrappers.begin(), t.wrappers.end(),
                  [&](const ServerProcess& w) { return w.pid == pid; }))
    return "the wrapper that would restart the " + t.noun;
  if (pid == t.root.pid) return t.noun + ": " + t.root_cmdline;
  if (t.supervisor && t.supervisor->pid == pid)
    return "the owner process of the " + t.noun + ", named with --pid";
  return t.noun;
}

/// SIGTERM to what each target names (its wrappers, outermost first, then
/// its launcher; or exactly the --pid PIDs), or its owner's stop, then the
/// durable fix; returns handles of everything that must exit. `acted[i]`:
/// target i was stopped (not refused, its owner stop did not fail).
std::vector<Handle> terminate(const FreePlan& plan, const FreeOptions& o,
                              const CommandRunner& runner, FreeResult& r,
                              std::vector<bool>& acted) {
  std::vector<Handle> handles;
  std::vector<uint32_t> signalled;  // a supervisor named once may sit above two targets
  acted.assign(plan.targets.size(), false);
  for (size_t ti = 0; ti < plan.targets.size(); ++ti) {
    const TreeTarget& t = plan.targets[ti];
    std::vector<ProcId> ids = t.signal;
    for (const std::vector<ProcId>* more : {&t.kill, &t.holders})
      for (const ProcId& h : *more)
        if (!in(ids, h.pid)) ids.push_back(h);
    std::vector<Handle> mine;
    bool refused = false;
    for (const ProcId& id : ids) {
      Result<int> fd = open_verified_pidfd(id);
      // SIGKILL goes to exactly what the plan names for it; anything else
      // opened here (a holder below an exact --pid) is watched, not killed.
      if (fd) {
        mine.push_back({*fd, id, in(t.kill, id.pid), t.whole});
      } else if (in(t.signal, id.pid) &&
                 std::find(signalled.begin(), signalled.end(), id.pid) == signalled.end()) {
        // (One an earlier target's stop signalled, such as a supervisor
        // named above two servers, may have exited since: as planned.)
        r.refusals.push_back(
            {id.pid, "PID " + std::to_string(id.pid) + " (" + t.noun + ")", fd.error().message});
        refused = true;
      }
    }
    // A target refused at act time is left alone whole: its processes get
    // neither SIGTERM nor, later, SIGKILL.
    if (refused) {
      close_all(mine);
      continue;
    }
    if (t.stop.via_owner) {
      OwnerStop done = stop_via_owner(t, o, runner, r);
      if (done == OwnerStop::kDone) {
        acted[ti] = true;
        handles.insert(handles.end(), mine.begin(), mine.end());
        disable(t, runner, r);
        continue;
      }
      // The owner could not be stopped: never fall back to signals the
      // plan did not show (the owner would restart what they stop anyway).
      close_all(mine);
      if (done == OwnerStop::kNotApplicable)
        r.failures.push_back("cannot stop " + t.stop.owner_text +
                             " from gpu-triage; run: " + t.stop.stop.front());
      continue;
    }
    acted[ti] = true;
    handles.insert(handles.end(), mine.begin(), mine.end());
    for (const ProcId& id : t.signal) {  // in the plan's order: wrappers first
      auto h = std::find_if(mine.begin(), mine.end(),
                            [&](const Handle& x) { return x.id.pid == id.pid; });
      if (h == mine.end() ||
          std::find(signalled.begin(), signalled.end(), id.pid) != signalled.end())
        continue;
      signalled.push_back(id.pid);
      if (pidfd_signal(h->fd, SIGTERM) == 0)
        r.actions.push_back("sent SIGTERM to PID " + std::to_string(id.pid) + " (" +
                            signal_role(t, id.pid) + ")");
      else if (const int err = errno; err != ESRCH)
        r.failures.push_back(errno_error(err, "SIGTERM to PID " + std::to_string(id.pid)).message);
    }
    disable(t, runner, r);
  }
  return handles;
}

/// Processes started below a still-running process of a stopped tree after
/// the plan was made (a restart loop that ran the launcher again): part of
/// that tree, so they are killed with it. Each is stopped (SIGSTOP) as it
/// is found, and the search repeats until a round finds none, so a tree
/// that keeps forking cannot leave a child behind.
void freeze_tree(std::vector<Handle>& handles, FreeResult& r) {
  const std::set<uint32_t> self = self_and_ancestors(FsRoot("/"));
  for (int round = 0; round < 8; ++round) {
    for (Handle& h : handles)
      if (h.killable && h.whole && !exited(h.fd)) pidfd_signal(h.fd, SIGSTOP);
    const ProcTable table = read_proc_table(FsRoot("/"));
    std::vector<Handle> added;
    for (const Handle& h : handles) {
      if (!h.killable || !h.whole || exited(h.fd)) continue;
      for (uint32_t pid : descendants(table, h.id.pid)) {
        auto known = [&](const std::vector<Handle>& v) {
          return std::any_of(v.begin(), v.end(), [&](const Handle& x) { return x.id.pid == pid; });
        };
        auto e = table.procs.find(pid);
        if (known(handles) || known(added) || e == table.procs.end() || self.count(pid)) continue;
        if (Result<int> fd = open_verified_pidfd({pid, e->second.start_ticks})) {
          added.push_back({*fd, {pid, e->second.start_ticks}, true, true});
          r.actions.push_back("found PID " + std::to_string(pid) + ", started below PID " +
                              std::to_string(h.id.pid) + " after the plan");
        }
      }
    }
    if (added.empty()) return;
    handles.insert(handles.end(), added.begin(), added.end());
  }
}

/// SIGKILL to every killable process still running; how many were sent.
/// Below a tree stopped whole, what was started since the plan is part of
/// it (freeze_tree); an exact --pid stop kills exactly the named PIDs.
size_t kill_survivors(std::vector<Handle>& handles, FreeResult& r) {
  freeze_tree(handles, r);
  size_t sent = 0;
  for (Handle& h : handles) {
    if (h.fd < 0 || !h.killable || exited(h.fd)) continue;
    if (pidfd_signal(h.fd, SIGKILL) == 0) {
      ++sent;
      r.actions.push_back("sent SIGKILL to PID " + std::to_string(h.id.pid) +
                          " (still running after the grace period)");
    }
  }
  return sent;
}

/// What `pid` is, for a message: "PID 9 ('python3 -m x')".
std::string named_pid(uint32_t pid) {
  std::optional<ProcInfo> p = read_proc(FsRoot("/"), pid);
  return "PID " + std::to_string(pid) +
         (p ? " ('" + (p->cmdline.empty() ? p->comm : p->cmdline.substr(0, 120)) + "')"
            : std::string());
}

/// Whether `pid` is `ancestor` or below it in `table`.
bool at_or_below(const ProcTable& table, uint32_t pid, uint32_t ancestor) {
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    if (pid == ancestor) return true;
    auto e = table.procs.find(pid);
    if (e == table.procs.end()) return false;
    pid = e->second.ppid;
  }
  return false;
}

/// Whether `pid` is an init that adopts orphans rather than their starter:
/// PID 1, a container's init (PID 1 in its own namespace: the last NSpid
/// field) or a user manager (`systemd --user`, a child subreaper). A
/// process whose parent is one was reparented there (its starter
/// double-forked or exited), so that parent says nothing of what starts it.
bool adopting_init(uint32_t pid) {
  if (pid <= 1) return true;
  std::optional<ProcInfo> p = read_proc(FsRoot("/"), pid);
  if (!p) return false;
  if (p->cmdline.starts_with("systemd --user") ||
      p->cmdline.find("/systemd --user") != std::string::npos)
    return true;
  Result<std::string> status = FsRoot("/").read("/proc/" + std::to_string(pid) + "/status");
  if (!status) return false;
  const size_t at = status->find("\nNSpid:");
  if (at == std::string::npos) return false;
  const size_t end = status->find('\n', at + 1);
  std::string line = status->substr(at + 7, end == std::string::npos ? end : end - at - 7);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  const size_t last = line.find_last_of(" \t");
  return line.substr(last == std::string::npos ? 0 : last + 1) == "1";
}

/// Whether the init `parent` is the restarter itself: a systemd unit's
/// manager starts its service again (Restart=).
bool unit_manager(const TreeTarget& t) {
  return t.owner_kind &&
         (*t.owner_kind == OwnerKind::kSystemdUnit || *t.owner_kind == OwnerKind::kSystemdUserUnit);
}

/// What started a new process of `t`, for a message: its parent, unless
/// that is an init that adopted it (then never named as the starter).
std::string started_by(const TreeTarget& t, uint32_t parent) {
  return adopting_init(parent) && !unit_manager(t)
             ? "a process that is unknown (it was reparented to init, PID " +
                   std::to_string(parent) + ")"
             : named_pid(parent);
}

/// Who to stop so that `t` stays stopped, given the process that started
/// it again.
std::string restart_hint(const TreeTarget& t, const ProcTable& table, uint32_t parent,
                         const FreeOptions& o) {
  if (t.supervisor && at_or_below(table, parent, t.supervisor->pid))
    return "its owner process PID " + std::to_string(t.supervisor->pid) +
           " starts it again; stop that with " + whole_server_command(t.supervisor->pid);
  if (!t.stop.via_owner && t.owner_kind && owner_stoppable(*t.owner_kind) && !o.via_owner)
    return t.stop.owner_text + " starts it again; stop it through its owner with " +
           free_command_adding(o, {"--via-owner"});
  if (adopting_init(parent) && !unit_manager(t))
    return "what starts it is unknown (the new process was reparented to init): find it with "
           "`ps -eo pid,ppid,lstart,args`, `systemctl list-units` and `crontab -l`, stop that, "
           "then run this again";
  return "stop what starts it (" + named_pid(parent) + ") first";
}

/// Marks the GPUs of target `t` as taken again and says why.
void started_again(const TreeTarget& t, const std::string& why, FreeResult& r) {
  r.failures.push_back(why);
  for (uint32_t index : t.gpus)
    for (GpuRelease& g : r.gpus)
      if (g.index == index) g.started_again = true;
}

/// What a stopped target was when the act began, to know it if it comes
/// back: the command line of each process the plan stopped (its wrappers,
/// launcher, workers; a supervisor named with --pid), and what would start
/// them again: the first ancestor of each that is neither stopped nor an
/// intermediary (a restart loop, a supervisor, an elastic agent, init for
/// a unit).
struct Stopped {
  std::set<std::string> cmdlines;
  std::map<uint32_t, uint64_t> restarters;  ///< pid -> start ticks at the act's start
};

Stopped stopped_of(const TreeTarget& t, const ProcTable& at_start) {
  Stopped s;
  std::set<uint32_t> pids;
  for (const std::vector<ProcId>* v : {&t.signal, &t.kill, &t.holders})
    for (const ProcId& id : *v) pids.insert(id.pid);
  for (uint32_t pid : pids) {
    std::optional<ProcInfo> p = read_proc(FsRoot("/"), pid);
    if (!p || p->cmdline.empty()) continue;
    s.cmdlines.insert(p->cmdline);
    for (int depth = 0; depth < 64; ++depth) {
      if (p->ppid <= 1) {
        s.restarters.emplace(p->ppid, 0);  // init: starts a unit's process again
        break;
      }
      auto e = at_start.procs.find(p->ppid);
      if (e == at_start.procs.end()) break;
      std::optional<ProcInfo> up = read_proc(FsRoot("/"), p->ppid);
      if (!up) break;
      if (!pids.count(up->pid) && !is_intermediary(*up)) {
        s.restarters.emplace(up->pid, e->second.start_ticks);
        break;
      }
      p = up;
    }
  }
  return s;
}

/// Whether `pid` in `table` is the process of that PID at the act's start.
bool old_process(const ProcTable& at_start, const ProcTable& table, uint32_t pid) {
  auto old = at_start.procs.find(pid);
  auto now = table.procs.find(pid);
  return old != at_start.procs.end() && now != table.procs.end() &&
         old->second.start_ticks == now->second.start_ticks;
}

/// The restarter that started the new process `p` as a stopped process of
/// `s` again: above `p`, only new processes each a stopped one's command
/// line or an intermediary, up to an old process that is one of s's
/// restarters. nullopt when `p` is not `s` come back.
std::optional<uint32_t> restarted_by(const Stopped& s, const ProcInfo& p, const ProcTable& at_start,
                                     const ProcTable& table) {
  if (!s.cmdlines.count(p.cmdline)) return std::nullopt;
  uint32_t pid = p.ppid;
  for (int depth = 0; depth < 64; ++depth) {
    if (pid <= 1 || old_process(at_start, table, pid)) {
      auto r = s.restarters.find(pid);
      auto e = table.procs.find(pid);
      bool same = r != s.restarters.end() &&
                  (pid <= 1 || (e != table.procs.end() && e->second.start_ticks == r->second));
      return same ? std::optional<uint32_t>(pid) : std::nullopt;
    }
    std::optional<ProcInfo> up = read_proc(FsRoot("/"), pid);
    if (!up || !(s.cmdlines.count(up->cmdline) || is_intermediary(*up))) return std::nullopt;
    pid = up->ppid;
  }
  return std::nullopt;
}

/// One process started again within the settle window, the outermost of
/// its chain, and the old process that started it.
struct Comeback {
  uint32_t pid = 0;
  std::string cmdline;
  uint32_t by = 0;
};

/// What of each acted target came back by now (new PIDs only), added to
/// `found`: one found on an earlier poll stays, so a restart that died
/// again within the window is said too.
void find_comebacks(const FreePlan& plan, const std::vector<bool>& acted,
                    const std::vector<Stopped>& stopped, const ProcTable& at_start,
                    std::vector<std::map<uint32_t, Comeback>>& found) {
  const ProcTable table = read_proc_table(FsRoot("/"));
  for (const auto& [pid, e] : table.procs) {
    if (old_process(at_start, table, pid)) continue;
    std::optional<ProcInfo> p = read_proc(FsRoot("/"), pid);
    if (!p || p->cmdline.empty()) continue;
    for (size_t ti = 0; ti < plan.targets.size(); ++ti)
      if (acted[ti] && !found[ti].count(pid))
        if (std::optional<uint32_t> by = restarted_by(stopped[ti], *p, at_start, table))
          found[ti][pid] = {pid, p->cmdline, *by};
  }
}

/// Who to stop so that `t` stays stopped when `by` started it again.
std::string comeback_hint(const TreeTarget& t, const ProcTable& table, uint32_t by,
                          const FreeOptions& o) {
  if (!t.whole && by == t.root.pid)
    return fmt::format(
        "its launcher PID {} starts workers that exit again (an elastic agent's restart); stop "
        "the whole {} with {}",
        by, t.noun, whole_server_command(by));
  return restart_hint(t, table, by, o);
}

/// After the stop, for o.settle: a process started since the act began
/// that is one the plan stopped come back (the same command line, started
/// by what started it before: a loop through its intermediaries, a
/// supervisor, an elastic agent, a unit), or a process NVML lists on a
/// stopped target's GPU that the plan did not see. Each is a failure.
void check_settled(const FreePlan& plan, const std::vector<bool>& acted,
                   const std::vector<Stopped>& stopped, const NodeSnapshot& before,
                   const ProcTable& at_start, const FreeOptions& o, const CollectFn& collect,
                   NodeSnapshot& now, FreeResult& r) {
  std::vector<std::map<uint32_t, Comeback>> found(plan.targets.size());
  const Clock::time_point end = Clock::now() + o.settle;
  do {
    find_comebacks(plan, acted, stopped, at_start, found);
    std::this_thread::sleep_for(std::min<Clock::duration>(
        std::chrono::milliseconds(200), std::max<Clock::duration>(end - Clock::now(), {})));
  } while (Clock::now() < end);
  find_comebacks(plan, acted, stopped, at_start, found);
  now = collect();
  const ProcTable table = read_proc_table(FsRoot("/"));
  const std::string within = fmt::format("within {:.0f} s after the stop", o.settle.count() / 1e3);
  std::set<uint32_t> told;
  for (size_t ti = 0; ti < plan.targets.size(); ++ti) {
    const TreeTarget& t = plan.targets[ti];
    for (const auto& [pid, c] : found[ti]) {
      told.insert(pid);
      // The outermost of a chain is named: what its restarter started.
      bool inner = false;
      for (const auto& [other, oc] : found[ti])
        inner = inner || (other != pid && oc.by == c.by && at_or_below(table, pid, other));
      if (inner) continue;
      started_again(t,
                    fmt::format("the {} was started again {}: PID {} ('{}'), by {}; {}", t.noun,
                                within, pid, c.cmdline.substr(0, 120), started_by(t, c.by),
                                comeback_hint(t, table, c.by, o)),
                    r);
    }
  }
  for (size_t ti = 0; ti < plan.targets.size(); ++ti) {
    if (!acted[ti]) continue;
    const TreeTarget& t = plan.targets[ti];
    for (uint32_t index : t.gpus) {
      const GpuState* g = gpu_by_index(now, index);
      const GpuState* was = gpu_by_index(before, index);
      if (!g || !g->processes) continue;
      for (const GpuProcess& p : *g->processes) {
        bool seen = was && was->processes &&
                    std::any_of(was->processes->begin(), was->processes->end(),
                                [&](const GpuProcess& b) { return b.pid == p.pid; });
        if (seen || !told.insert(p.pid).second) continue;
        std::optional<ProcInfo> info = read_proc(FsRoot("/"), p.pid);
        started_again(t,
                      fmt::format("GPU {} is held again {} by {}, which the plan did not see; {}",
                                  index, within, named_pid(p.pid),
                                  info ? restart_hint(t, table, info->ppid, o)
                                       : std::string("stop what starts it first")),
                      r);
      }
    }
  }
}

void finish(const FreePlan& plan, const NodeSnapshot& before, const NodeSnapshot& after,
            FreeResult& r) {
  for (uint32_t index : plan.gpus) {
    GpuRelease* rel = nullptr;
    for (GpuRelease& x : r.gpus)
      if (x.index == index) rel = &x;
    if (!rel) {
      r.gpus.push_back(GpuRelease{index});
      rel = &r.gpus.back();
    }
    if (const GpuState* g = gpu_by_index(before, index))
      rel->used_before_bytes = g->memory_used_bytes;
    const GpuState* g = gpu_by_index(after, index);
    if (!g) continue;
    rel->used_after_bytes = g->memory_used_bytes;
    rel->free_at_end = gpu_is_free(*g) && !rel->started_again;
    if (rel->free_at_end || rel->started_again) continue;  // a failure says why
    r.memory_remains = true;
    bool no_process = g->processes && std::none_of(g->processes->begin(), g->processes->end(),
                                                   [](const GpuProcess& p) { return p.visible; });
    if (no_process) r.remaining.push_back(reset_recipe(*g));
  }
}

}  // namespace

Result<int> open_verified_pidfd(const ProcId& id) {
  int fd = pidfd_open_sys(id.pid);
  if (fd < 0) {
    int err = errno;
    if (err == ESRCH)
      return Error{errno_kind(err), "PID " + std::to_string(id.pid) + " has already exited"};
    return errno_error(err, "PID " + std::to_string(id.pid) + ": pidfd_open");
  }
  std::optional<ProcInfo> now = read_proc(FsRoot("/"), id.pid);
  if (!now || now->start_ticks != id.start_ticks) {
    ::close(fd);
    return Error{ErrorKind::kNotFound,
                 "PID " + std::to_string(id.pid) +
                     " now belongs to another process (its start time changed since the "
                     "plan): not signalled"};
  }
  return fd;
}

FreeResult describe_state(const FreePlan& plan, const NodeSnapshot& now) {
  FreeResult r;
  finish(plan, now, now, r);
  return r;
}

FreeResult act_free(const FreePlan& plan, const NodeSnapshot& before, const FreeOptions& o,
                    const CollectFn& collect, const CommandRunner& runner) {
  FreeResult r;
  for (uint32_t index : plan.gpus) r.gpus.push_back(GpuRelease{index});
  const ProcTable at_start = read_proc_table(FsRoot("/"));
  std::vector<Stopped> stopped;
  for (const TreeTarget& t : plan.targets) stopped.push_back(stopped_of(t, at_start));
  const Clock::time_point t0 = Clock::now();
  std::vector<bool> acted;
  std::vector<Handle> handles = terminate(plan, o, runner, r, acted);
  std::optional<Clock::time_point> killed_at;
  size_t kills = 0;
  NodeSnapshot now = before;
  std::vector<uint32_t> held;  // GPUs still held by a stopped target's processes
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    now = collect();
    double t = std::chrono::duration<double>(Clock::now() - t0).count();
    held.clear();
    for (size_t ti = 0; ti < plan.targets.size(); ++ti) {
      if (!acted[ti]) continue;  // refused or its owner stop failed: nothing to wait for
      const TreeTarget& target = plan.targets[ti];
      for (uint32_t index : target.gpus) {
        const GpuState* g = gpu_by_index(now, index);
        GpuRelease& rel = *std::find_if(r.gpus.begin(), r.gpus.end(),
                                        [&](const GpuRelease& x) { return x.index == index; });
        if (g && !holds_any(*g, target.holders)) {
          if (!rel.released_after_s) rel.released_after_s = t;
        } else if (std::find(held.begin(), held.end(), index) == held.end()) {
          held.push_back(index);
        }
      }
    }
    // Done when the memory is released and every process of the stopped
    // trees has exited: a launcher or loop still running could start again.
    bool running = std::any_of(handles.begin(), handles.end(),
                               [](const Handle& h) { return h.killable && !exited(h.fd); });
    if (held.empty() && !running) break;
    if (!killed_at && Clock::now() - t0 >= o.grace) {
      kills = kill_survivors(handles, r);
      killed_at = Clock::now();
    }
    if (killed_at && Clock::now() - *killed_at >= std::chrono::seconds(10)) break;
  }
  // Confirm: what of the stopped trees is left, in words that say what was sent.
  std::vector<uint32_t> alive;
  for (const Handle& h : handles)
    if (h.killable && !exited(h.fd)) alive.push_back(h.id.pid);
  const std::string after = kills > 0
                                ? "10 s after SIGKILL"
                                : fmt::format(
                                      "{:.0f} s after the stop (no SIGKILL was "
                                      "needed or allowed)",
                                      std::chrono::duration<double>(Clock::now() - t0).count());
  if (!alive.empty())
    r.failures.push_back("PIDs " + format_index_list(alive) + " still running " + after);
  const bool exact = std::any_of(plan.targets.begin(), plan.targets.end(),
                                 [](const TreeTarget& x) { return !x.whole; });
  if (!held.empty())
    r.failures.push_back(
        "memory still held on GPU" + std::string(held.size() == 1 ? " " : "s ") +
        format_index_list(held) + " " + after +
        (exact ? "; only the PIDs named with --pid were signalled" : std::string()));
  for (Handle& h : handles) ::close(h.fd);
  if (std::find(acted.begin(), acted.end(), true) != acted.end())
    check_settled(plan, acted, stopped, before, at_start, o, collect, now, r);
  finish(plan, before, now, r);
  return r;
}

}  // namespace gt
