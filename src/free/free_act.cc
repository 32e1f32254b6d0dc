// Signals go through pidfds (Linux 5.3+): pidfd_open pins one process, so
// after checking that /proc/PID/stat's start time is the one we planned
// with, every later signal reaches that process or nobody, even if the PID
// is reused meanwhile. Exit is seen by poll() on the pidfd. Memory release
// is seen through NVML: a GPU is released when none of the tree's holders
// is in its process list any more.
#include "free/free_act.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "sources/procfs/process_tree.h"

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

/// Stops a target through its owner.
OwnerStop stop_via_owner(const TreeTarget& t, const FreeOptions& o, const CommandRunner& runner,
                         FreeResult& r) {
  if (!t.owner_kind || !t.owner_name) return OwnerStop::kNotApplicable;
  std::vector<std::string> argv;
  const std::string grace_s = std::to_string(std::max<int64_t>(1, o.grace.count() / 1000));
  if (*t.owner_kind == "systemd-unit")
    argv = {"systemctl", "stop", *t.owner_name};
  else if (*t.owner_kind == "docker")
    argv = {"docker", "stop", "-t", grace_s, *t.owner_name};
  else if (*t.owner_kind == "podman")
    argv = {"podman", "stop", "-t", grace_s, *t.owner_name};
  else
    return OwnerStop::kNotApplicable;
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  CommandResult res = runner.run(argv, o.grace + std::chrono::seconds(15));
  if (res.spawn_error || res.timed_out || res.exit_code != 0) {
    r.failures.push_back(cmd + " failed: " +
                         (res.spawn_error ? *res.spawn_error
                          : res.timed_out
                              ? std::string("timed out")
                              : "exit " + std::to_string(res.exit_code) + ": " + res.err));
    return OwnerStop::kFailed;
  }
  r.actions.push_back("ran " + cmd);
  return OwnerStop::kDone;
}

void close_all(std::vector<Handle>& hs) {
  for (Handle& h : hs) ::close(h.fd);
  hs.clear();
}

bool in(const std::vector<ProcId>& v, uint32_t pid) {
  return std::any_of(v.begin(), v.end(), [&](const ProcId& x) { return x.pid == pid; });
}

/// SIGTERM to what each target names (its launcher, or exactly the --pid
/// PIDs), or its owner's stop; returns handles of everything that must exit.
std::vector<Handle> terminate(const FreePlan& plan, const FreeOptions& o,
                              const CommandRunner& runner, FreeResult& r) {
  std::vector<Handle> handles;
  for (const TreeTarget& t : plan.targets) {
    std::vector<ProcId> ids = t.signal;
    for (const ProcId& h : t.holders)
      if (!in(ids, h.pid)) ids.push_back(h);
    std::vector<Handle> mine;
    bool refused = false;
    for (const ProcId& id : ids) {
      Result<int> fd = open_verified_pidfd(id);
      if (fd) {
        mine.push_back({*fd, id});
      } else if (in(t.signal, id.pid)) {
        r.refusals.push_back(
            {id.pid, "PID " + std::to_string(id.pid) + " (" + t.noun + ")", fd.error().message});
        refused = true;
      }
    }
    // A target refused at act time is left alone whole: its holders get
    // neither SIGTERM nor, later, SIGKILL.
    if (refused) {
      close_all(mine);
      continue;
    }
    if (t.stop.via_owner) {
      OwnerStop done = stop_via_owner(t, o, runner, r);
      if (done == OwnerStop::kDone) {
        handles.insert(handles.end(), mine.begin(), mine.end());
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
    handles.insert(handles.end(), mine.begin(), mine.end());
    for (const Handle& h : mine) {
      if (!in(t.signal, h.id.pid)) continue;
      if (pidfd_signal(h.fd, SIGTERM) == 0)
        r.actions.push_back("sent SIGTERM to PID " + std::to_string(h.id.pid) + " (" + t.noun +
                            (h.id.pid == t.root.pid ? ": " + t.root_cmdline : std::string()) + ")");
      else if (errno != ESRCH)
        r.failures.push_back("SIGTERM to PID " + std::to_string(h.id.pid) + ": " +
                             std::strerror(errno));
    }
  }
  return handles;
}

void kill_survivors(std::vector<Handle>& handles, FreeResult& r) {
  for (Handle& h : handles) {
    if (h.fd < 0 || exited(h.fd)) continue;
    if (pidfd_signal(h.fd, SIGKILL) == 0)
      r.actions.push_back("sent SIGKILL to PID " + std::to_string(h.id.pid) +
                          " (still running after the grace period)");
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
    return Error{err == ESRCH ? ErrorKind::kNotFound : ErrorKind::kIo,
                 "PID " + std::to_string(id.pid) +
                     (err == ESRCH ? " has already exited"
                                   : std::string(": pidfd_open: ") + std::strerror(err))};
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
  std::vector<Handle> handles = terminate(plan, o, runner, r);
  bool killed = false;
  NodeSnapshot now = before;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    now = collect();
    double t = std::chrono::duration<double>(Clock::now() - t0).count();
    bool all = true;
    for (const TreeTarget& target : plan.targets) {
      bool refused = std::any_of(r.refusals.begin(), r.refusals.end(),
                                 [&](const Refusal& x) { return in(target.signal, x.pid); });
      if (refused) continue;  // not signalled: nothing to wait for
      for (uint32_t index : target.gpus) {
        const GpuState* g = gpu_by_index(now, index);
        GpuRelease& rel = *std::find_if(r.gpus.begin(), r.gpus.end(),
                                        [&](const GpuRelease& x) { return x.index == index; });
        if (g && !holds_any(*g, target.holders)) {
          if (!rel.released_after_s) rel.released_after_s = t;
        } else {
          all = false;
        }
      }
    }
    if (all) break;
    if (!killed && Clock::now() - t0 >= o.grace) {
      kill_survivors(handles, r);
      killed = true;
    }
    if (Clock::now() - t0 >= o.grace + std::chrono::seconds(10)) {
      r.failures.push_back("memory still held 10 s after SIGKILL");
      break;
    }
  }
  for (Handle& h : handles) ::close(h.fd);
  finish(plan, before, now, r);
  return r;
}

}  // namespace gt
