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
#include <set>
#include <thread>

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
  bool killable = true;  ///< may get SIGKILL after the grace period
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
                       "` yourself where it can be reached, or use --signal to signal its "
                       "processes anyway");
  return OwnerStop::kFailed;
}

/// The durable fix of a target whose stop was done: every disable command
/// of the plan, run or handed to the operator.
void disable(const TreeTarget& t, const CommandRunner& runner, FreeResult& r) {
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
    for (const std::vector<ProcId>* more : {&t.tree, &t.holders})
      for (const ProcId& h : *more)
        if (!in(ids, h.pid)) ids.push_back(h);
    std::vector<Handle> mine;
    bool refused = false;
    for (const ProcId& id : ids) {
      Result<int> fd = open_verified_pidfd(id);
      // With --pid only the named PIDs are ever signalled; the holders
      // below them are watched, not killed.
      const bool killable = o.pids.empty() || t.stop.via_owner || in(t.signal, id.pid);
      if (fd) {
        mine.push_back({*fd, id, killable});
      } else if (in(t.signal, id.pid)) {
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
      bool wrapper = std::any_of(t.wrappers.begin(), t.wrappers.end(),
                                 [&](const ServerProcess& w) { return w.pid == id.pid; });
      if (pidfd_signal(h->fd, SIGTERM) == 0)
        r.actions.push_back(
            "sent SIGTERM to PID " + std::to_string(id.pid) + " (" +
            (wrapper ? "the wrapper that would restart the " + t.noun
                     : t.noun + (id.pid == t.root.pid ? ": " + t.root_cmdline : std::string())) +
            ")");
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
      if (h.killable && !exited(h.fd)) pidfd_signal(h.fd, SIGSTOP);
    const ProcTable table = read_proc_table(FsRoot("/"));
    std::vector<Handle> added;
    for (const Handle& h : handles) {
      if (!h.killable || exited(h.fd)) continue;
      for (uint32_t pid : descendants(table, h.id.pid)) {
        auto known = [&](const std::vector<Handle>& v) {
          return std::any_of(v.begin(), v.end(), [&](const Handle& x) { return x.id.pid == pid; });
        };
        auto e = table.procs.find(pid);
        if (known(handles) || known(added) || e == table.procs.end() || self.count(pid)) continue;
        if (Result<int> fd = open_verified_pidfd({pid, e->second.start_ticks})) {
          added.push_back({*fd, {pid, e->second.start_ticks}, true});
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
/// `whole_tree`: the target is a whole tree (not exactly --pid PIDs), so
/// what was started below it since the plan is part of it.
size_t kill_survivors(std::vector<Handle>& handles, bool whole_tree, FreeResult& r) {
  if (whole_tree) freeze_tree(handles, r);
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
    rel->free_at_end = gpu_is_free(*g);
    if (rel->free_at_end) continue;
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
      kills = kill_survivors(handles, o.pids.empty(), r);
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
  if (!held.empty())
    r.failures.push_back(
        "memory still held on GPU" + std::string(held.size() == 1 ? " " : "s ") +
        format_index_list(held) + " " + after +
        (o.pids.empty() ? std::string() : "; only the PIDs named with --pid were signalled"));
  for (Handle& h : handles) ::close(h.fd);
  finish(plan, before, now, r);
  return r;
}

}  // namespace gt
