// `gpu-triage free`: who to stop to free the selected GPUs, safely.
//
// The plan is built from a snapshot: every visible process holding memory on
// the selected GPUs, grouped into the process tree that must be stopped (the
// launcher above the workers), with its owner and the durable fix when an
// owner would restart it. Nothing is signalled here; see free_act.h.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/holders.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

struct FreeOptions {
  std::optional<std::vector<uint32_t>> gpus;  ///< --gpus LIST; nullopt = all
  std::vector<uint32_t> pids;                 ///< --pid: only these holders
  bool idle_only = false;                     ///< leave busy GPUs alone
  std::chrono::milliseconds grace{30000};     ///< SIGTERM -> SIGKILL
  bool yes = false;                           ///< act; without it only plan
  bool via_owner = false;                     ///< stop the unit / container instead
  bool json = false;
};

/// A process identified beyond its PID: the start time (clock ticks since
/// boot) tells a reused PID apart.
struct ProcId {
  uint32_t pid = 0;
  uint64_t start_ticks = 0;
};

/// One process tree to stop.
struct TreeTarget {
  ProcId root;  ///< the launcher (or the holder itself)
  std::string root_cmdline;
  std::optional<std::string> user;
  std::optional<int64_t> since_unix_s;  ///< the root's start time
  std::vector<ProcId> holders;          ///< the processes NVML lists
  std::vector<uint32_t> gpus;           ///< GPUs its holders hold memory on
  uint64_t bytes = 0;                   ///< memory its holders hold on the selected GPUs
  bool idle = true;                     ///< every one of its GPUs at 0% over the window
  std::string label;                    ///< "SGLang", else the process name
  std::optional<ProcessOwner> owner;
  StopCommands durable;                       ///< stop + disable commands for the owner
  std::optional<std::string> restart_policy;  ///< "Restart=always" from the unit file
};

struct Refusal {
  uint32_t pid = 0;
  std::string what;    ///< the process, in words
  std::string reason;  ///< why it is not touched
};

struct FreePlan {
  std::vector<uint32_t> gpus;  ///< the selected GPUs that exist
  std::vector<TreeTarget> targets;
  std::vector<Refusal> refusals;
  std::vector<std::string> skipped;  ///< left alone by choice (--idle-only, --pid)
  std::vector<std::string> errors;   ///< bad selection (no such GPU)
};

/// Who gpu-triage is, for the safety rules.
struct Self {
  uint32_t pid = 0;
  uint32_t euid = 0;
  std::set<uint32_t> tree;  ///< own PID and ancestors
};

/// Builds the plan. `root` is where /proc is read (the live "/" to act).
FreePlan make_free_plan(const NodeSnapshot& snap, const FsRoot& root, const FreeOptions& options,
                        const Self& self);

/// "Restart=always" (the Restart= line) of a systemd unit's file under root,
/// searched in /etc/systemd/system, /run/systemd/system, /lib/systemd/system
/// and /usr/lib/systemd/system; nullopt when not found.
std::optional<std::string> unit_restart_policy(const FsRoot& root, const std::string& unit);

/// Parses "0,2,5-7" or "all" (nullopt = all). Error on anything else.
Result<std::optional<std::vector<uint32_t>>> parse_gpu_list(const std::string& text);

/// Whether a GPU counts as free: no process listed and under 2% of its
/// memory used (the driver's own bookkeeping stays).
bool gpu_is_free(const GpuState& g);

}  // namespace gt
