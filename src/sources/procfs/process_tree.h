// What `gpu-triage free` needs to know about processes beyond the snapshot:
// parents, start times, kernel threads, our own ancestry, and the root of a
// server's process tree (the launcher whose workers hold the GPUs).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "util/fs_root.h"

namespace gt {

/// One /proc entry, as far as it could be read.
struct ProcInfo {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  char state = '?';
  uint64_t start_ticks = 0;  ///< /proc/PID/stat field 22: identifies the process, not just the PID
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

/// The top of `holder`'s server tree: climbs parents while they are in the
/// same cgroup, are not PID 1, not in `protected_pids`, and are not a shell,
/// terminal multiplexer, ssh, sudo, init or container shim (signalling those
/// would hit the operator's session or the container runtime).
uint32_t tree_root(const FsRoot& root, uint32_t holder, const std::set<uint32_t>& protected_pids);

/// Why `p` must never be signalled ("PID 1 (init)", "gpu-triage itself",
/// "an ancestor of gpu-triage", "a kernel thread", "owned by uid N; only root may
/// signal other users' processes"), or nullopt when it may be.
std::optional<std::string> refusal_reason(const ProcInfo& p, const std::set<uint32_t>& self_tree,
                                          uint32_t my_pid, uint32_t my_euid);

}  // namespace gt
