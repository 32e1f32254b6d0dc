// What `gpu-triage free` needs to know about processes beyond the snapshot:
// parents, start times, kernel threads, our own ancestry, and the root of a
// server's process tree (the launcher whose workers hold the GPUs).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/fs_root.h"

namespace gt {

/// One /proc entry, as far as it could be read.
struct ProcInfo {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  char state = '?';
  uint64_t start_ticks = 0;  ///< /proc/PID/stat field 22: identifies the process, not just the PID
  std::optional<uint32_t> pgrp;  ///< process group (field 5)
  std::string comm;
  std::string cmdline;  ///< empty for kernel threads
  std::optional<uint32_t> uid;
  std::string cgroup;  ///< raw text of /proc/PID/cgroup
  bool kernel_thread = false;
};

/// Reads /proc/PID under root; nullopt when it does not exist (or vanished).
std::optional<ProcInfo> read_proc(const FsRoot& root, uint32_t pid);

/// PIDs of this process and every ancestor up to PID 1 (read from /proc).
std::set<uint32_t> self_and_ancestors(const FsRoot& root);

/// Why a climb from a GPU holder toward its launcher ended.
enum class ClimbEnd {
  kInit,        ///< the parent is PID 1 (or 0)
  kProtected,   ///< the parent is gpu-triage or one of its ancestors
  kUnreadable,  ///< the parent's /proc entry could not be read (it exited, or no permission)
  kCgroup,      ///< the parent is in another cgroup (another unit, container or session)
  kSession,     ///< the parent is the operator's or the runtime's (a shell, sshd, sudo, a shim)
  kSupervisor,  ///< the parent is a supervisor daemon (supervisord, runsv, s6-supervise)
  kLimit,       ///< 64 levels, or a PID seen twice (a cycle while processes were reparented)
};

/// The holder and each parent above it that may belong to its server: the
/// climb stays in the holder's cgroup and stops below PID 1, gpu-triage and
/// its ancestors, kernel threads, and anything that is the operator's or
/// the runtime's (an interactive shell, tmux/screen, sshd, sudo, an init, a
/// container shim). A shell running a script or `-c` command (a wrapper or
/// restart loop) is climbed through.
struct Climb {
  std::vector<ProcInfo> chain;  ///< chain[0] is the holder; empty when it cannot be read
  ClimbEnd end = ClimbEnd::kInit;
  std::optional<ProcInfo> boundary;  ///< the parent that ended the climb, when read
};
Climb climb_from(const FsRoot& root, uint32_t holder, const std::set<uint32_t>& protected_pids);

/// Whether `p` is a shell running a script or a `-c` command (not an
/// interactive or login shell): a wrapper that may belong to a server.
bool is_script_shell(const ProcInfo& p);

/// Whether `p` is a program that runs one command for another (timeout,
/// su, sudo, runuser, doas, setsid, nohup, env, stdbuf, numactl, taskset,
/// chrt, nice, ionice, flock): between a restart loop and the launcher it
/// is part of the server's stop, and a new one with the same command line
/// under the same loop is the server started again.
bool is_intermediary(const ProcInfo& p);

/// Why `p` must never be signalled ("PID 1 (init)", "gpu-triage itself",
/// "an ancestor of gpu-triage", "a kernel thread", "owned by uid N; only root may
/// signal other users' processes"), or nullopt when it may be.
std::optional<std::string> refusal_reason(const ProcInfo& p, const std::set<uint32_t>& self_tree,
                                          uint32_t my_pid, uint32_t my_euid);

}  // namespace gt
