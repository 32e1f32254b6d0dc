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

#include "holders/stop.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

struct FreeOptions {
  std::optional<std::vector<uint32_t>> gpus;  ///< --gpus LIST; nullopt = all
  std::vector<uint32_t> pids;                 ///< --pid: signal exactly these
  /// Stop servers that are busy or whose idleness is not known too (by
  /// default only servers idle over the whole sample window are stopped).
  bool include_busy = false;
  std::chrono::milliseconds grace{30000};  ///< SIGTERM -> SIGKILL
  bool yes = false;                        ///< act; without it only plan
  bool via_owner = false;                  ///< stop the unit / container instead
  /// Widen the selection to whole servers (--whole-server): with --pid, each
  /// server a named PID reaches is stopped whole, as --gpus stops it.
  bool whole_server = false;
  bool force_signal = false;  ///< signal even where the owner restarts it (--signal)
  bool json = false;
  /// After the stop: how long to watch for a server started again (by a
  /// supervisor, a unit, a loop) before the result is judged.
  std::chrono::milliseconds settle{2000};
  /// Where --yes records the node (a bundle) before its first signal;
  /// nullopt: --no-bundle.
  std::optional<std::string> bundle_dir;
};

/// A process identified beyond its PID: the start time (clock ticks since
/// boot) tells a reused PID apart.
struct ProcId {
  uint32_t pid = 0;
  uint64_t start_ticks = 0;
};

/// One server (or, with --pid, some of its processes) to stop.
struct TreeTarget {
  std::string server_id;  ///< Server::id
  ProcId root;            ///< the launcher (or the holder itself)
  std::string root_cmdline;
  /// What SIGTERM goes to, in this order: PIDs named with --pid above the
  /// launcher (a supervisor) outermost first, then the wrappers outermost
  /// first, then the launcher (each worker when it exited); or, for a --pid
  /// stop without --whole-server, exactly the named PIDs, outermost first.
  std::vector<ProcId> signal;
  std::optional<std::string> user;
  std::optional<int64_t> since_unix_s;  ///< the root's start time
  std::vector<ProcId> holders;          ///< the GPU processes that stop with it
  /// Every other process of the stopped tree (below what `signal` names, as
  /// read at plan time). Empty for an exact --pid stop.
  std::vector<ProcId> tree;
  /// Every PID that gets SIGKILL after the grace period if still running:
  /// signal, tree and holders; exactly the named PIDs for an exact --pid
  /// stop. The plan prints this list and act_free kills exactly it.
  std::vector<ProcId> kill;
  /// The tree is stopped whole (--gpus, or --pid with --whole-server, or
  /// through its owner): a process started below a PID of `kill` after the
  /// plan (a loop that ran the launcher again) is killed with it.
  bool whole = true;
  std::vector<ServerProcess> wrappers;      ///< stopped before the launcher, outermost first
  std::optional<ServerProcess> supervisor;  ///< the owner process above: signalled only when named
  /// What the stop does with the supervisor, in words: "named with --pid:
  /// SIGTERM to it first, ..." or "... not stopped here; select it with
  /// `gpu-triage free --pid S --whole-server` ...". Empty without one.
  std::string supervisor_role;
  bool launcher_exited = false;
  std::vector<uint32_t> gpus;  ///< GPUs those processes hold memory on
  uint64_t bytes = 0;          ///< memory they hold (known sizes)
  /// Every one of its GPUs at 0% in every sample of the window; null when
  /// utilization was not sampled over a window (--sample 0) or is unknown.
  std::optional<bool> idle;
  std::string label;  ///< "SGLang", else the process name
  std::string noun;   ///< "SGLang server", "process python3"
  std::optional<OwnerKind> owner_kind;
  std::optional<std::string> owner_name;
  ServerStop stop;  ///< the commands (for a stop by its GPUs, the report's plan to the letter)
  /// `stop` is the report's plan for this server as it stands; false when
  /// --pid changed it (exactly the named PIDs, or a named supervisor first).
  bool report_commands = true;
  std::optional<std::string> restart_policy;  ///< "Restart=always", "Docker restart policy always"
  bool widened = false;                       ///< taken whole by --whole-server
};

struct Refusal {
  uint32_t pid = 0;
  std::string what;    ///< the process, in words
  std::string reason;  ///< why it is not touched
};

struct FreePlan {
  std::vector<uint32_t> gpus;  ///< the selected GPUs that exist (plus any --whole-server adds)
  std::vector<TreeTarget> targets;
  std::vector<Refusal> refusals;
  std::vector<std::string> skipped;  ///< left alone by choice (busy without --include-busy)
  std::vector<std::string>
      warnings;  ///< what the selection will also cause (a TP group's other ranks)
  std::vector<std::string> errors;  ///< bad selection (no such GPU)
};

/// Who gpu-triage is, for the safety rules.
struct Self {
  uint32_t pid = 0;
  uint32_t euid = 0;
  std::set<uint32_t> tree;  ///< own PID and ancestors
};

/// Builds the plan from the snapshot's servers (grouped here when the
/// snapshot has none). `root` is where /proc is read (the live "/" to act).
/// The selection is closed over what would be stopped: a server that also
/// holds GPUs outside --gpus, or whose stop would take processes beyond
/// --pid, is refused with every GPU and PID it would also stop, unless
/// --whole-server widens the selection. Where the owner restarts what a
/// signal stops, the owner is stopped (or, for Kubernetes, the plan is
/// refused with the commands to run) unless --signal forces a signal.
FreePlan make_free_plan(const NodeSnapshot& snap, const FsRoot& root, const FreeOptions& options,
                        const Self& self);

/// Parses "0,2,5-7" or "all" (nullopt = all): the chosen indices, sorted and
/// unique. Error on anything else, and on an index of kMaxGpus (1024) or
/// more, checked before anything is looped over or allocated.
Result<std::optional<std::vector<uint32_t>>> parse_gpu_list(const std::string& text);

/// Whether a GPU counts as free: no process listed and under 2% of its
/// memory used (the driver's own bookkeeping stays).
bool gpu_is_free(const GpuState& g);

}  // namespace gt
