// Where a GPU holder sits in its server's process tree: the launcher that
// is the root of its server (a recognised launcher of any known kind; its
// ancestors are not part of it), the wrapper scripts and restart loops
// between that launcher and its owner (part of its stop), and the owner
// process above several servers (a supervisor: shown, never part of one
// server's stop). Read from /proc: parents, children, process groups.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sources/procfs/process_tree.h"
#include "util/fs_root.h"

namespace gt {

/// Every process's parent, read once from /proc (stat only): who the
/// children of a wrapper are and what a tree holds beyond its GPU holders.
struct ProcTable {
  struct Entry {
    uint32_t ppid = 0;
    uint64_t start_ticks = 0;
    std::optional<uint32_t> pgrp;
  };
  std::map<uint32_t, Entry> procs;
  std::map<uint32_t, std::vector<uint32_t>> children;
  bool complete = false;  ///< /proc was listed and at most kMaxProcs entries were read
};
inline constexpr size_t kMaxProcs = 1u << 20;
ProcTable read_proc_table(const FsRoot& root);

/// Every process below `pid` (not itself), parents before children; bounded
/// by the table (a cycle from reparenting cannot loop).
std::vector<uint32_t> descendants(const ProcTable& table, uint32_t pid);

/// A holder's place: its server's launcher and what is above it.
struct HolderPlace {
  uint32_t launcher = 0;    ///< the root of its server (the holder itself when nothing above it is)
  bool recognised = false;  ///< the launcher is a known kind's (recognise_program)
  std::vector<ProcInfo> above;  ///< ancestors above the launcher inside the climb, nearest first
  ClimbEnd end = ClimbEnd::kInit;
  std::optional<ProcInfo> boundary;  ///< what ended the climb (a supervisor daemon, a shell...)
  /// The holder's launcher exited: it has no parent in its server (init or
  /// a subreaper adopted it) and its process group's leader is gone.
  std::optional<uint32_t> orphan_of_pgrp;
};

/// Climbs from `holder` (climb_from) and picks its launcher: the top of the
/// run of recognised processes that starts at the first recognised one
/// above (or at) the holder; without any, the top below the first wrapper
/// shell (the old rule: a script's shell is not the launcher).
HolderPlace place_holder(const FsRoot& root, const ProcTable& table, uint32_t holder,
                         const std::set<uint32_t>& protected_pids);

/// Splits what is above a launcher into its wrappers (each has exactly one
/// child, the next process down: a restart loop, a wrapper script) and the
/// first ancestor that has other children (the owner process, a
/// supervisor of several servers). Without a complete table nothing is a
/// wrapper (a stop may not reach what it cannot see).
struct AboveLauncher {
  std::vector<ProcInfo> wrappers;  ///< nearest first
  std::optional<ProcInfo> supervisor;
};
AboveLauncher split_above(const ProcTable& table, uint32_t launcher,
                          const std::vector<ProcInfo>& above);

}  // namespace gt
