// A server is what its launcher starts. Two SGLang launchers under one
// supervisor are two servers: the climb from a worker stops at the top of
// its run of recognised processes (the launcher), and the supervisor above
// is the owner, not part of either. A restart loop (`while true; do python
// -m sglang.launch_server ...; done`) has the launcher as its only child: it
// is part of the server's stop, or the loop would start it again.
#include "sources/procfs/server_tree.h"

#include <deque>

#include "holders/identity.h"
#include "sources/procfs/process_info.h"
#include "util/numeric.h"

namespace gt {

ProcTable read_proc_table(const FsRoot& root) {
  ProcTable t;
  Result<std::vector<std::string>> names = root.list("/proc");
  if (!names) return t;
  t.complete = true;
  for (const std::string& n : *names) {
    std::optional<uint32_t> pid = parse_int<uint32_t>(n);
    if (!pid) continue;
    if (t.procs.size() >= kMaxProcs) {
      t.complete = false;
      break;
    }
    Result<std::string> stat = root.read("/proc/" + n + "/stat");
    if (!stat) continue;  // exited meanwhile
    std::optional<ProcStat> s = parse_proc_stat(*stat);
    if (!s) continue;
    t.procs[*pid] = {s->ppid, s->start_time_ticks, s->pgrp};
    t.children[s->ppid].push_back(*pid);
  }
  return t;
}

std::vector<uint32_t> descendants(const ProcTable& table, uint32_t pid) {
  std::vector<uint32_t> out;
  std::set<uint32_t> seen = {pid};
  std::deque<uint32_t> todo = {pid};
  while (!todo.empty()) {
    auto it = table.children.find(todo.front());
    todo.pop_front();
    if (it == table.children.end()) continue;
    for (uint32_t c : it->second)
      if (seen.insert(c).second) {
        out.push_back(c);
        todo.push_back(c);
      }
  }
  return out;
}

namespace {

bool recognised(const ProcInfo& p) { return recognise_program(p.comm, p.cmdline).has_value(); }

}  // namespace

HolderPlace place_holder(const FsRoot& root, const ProcTable& table, uint32_t holder,
                         const std::set<uint32_t>& protected_pids) {
  HolderPlace place;
  place.launcher = holder;
  Climb c = climb_from(root, holder, protected_pids);
  place.end = c.end;
  place.boundary = c.boundary;
  if (c.chain.empty()) return place;
  size_t top = c.chain.size() - 1;
  size_t first = 0;
  while (first < c.chain.size() && !recognised(c.chain[first])) ++first;
  if (first < c.chain.size()) {
    top = first;
    while (top + 1 < c.chain.size() && recognised(c.chain[top + 1])) ++top;
    place.recognised = true;
  } else {
    for (size_t i = 1; i < c.chain.size(); ++i)
      if (is_script_shell(c.chain[i])) {
        top = i - 1;
        break;
      }
  }
  place.launcher = c.chain[top].pid;
  place.above.assign(c.chain.begin() + static_cast<std::ptrdiff_t>(top) + 1, c.chain.end());
  // Nothing above it and its process group's leader gone: the launcher
  // that started it (and led its group) exited.
  const ProcInfo& h = c.chain.front();
  const bool adopted =
      h.ppid <= 1 ||
      (c.boundary && (c.boundary->comm == "systemd" || c.boundary->comm == "tini" ||
                      c.boundary->comm == "dumb-init" || c.boundary->comm == "docker-init" ||
                      c.boundary->comm == "catatonit"));
  // Only a known kind's worker: unrelated programs a script left behind
  // share its group too, and are not one server.
  if (top == 0 && adopted && place.recognised && h.pgrp && *h.pgrp > 1 && *h.pgrp != holder &&
      table.complete && !table.procs.count(*h.pgrp))
    place.orphan_of_pgrp = *h.pgrp;
  return place;
}

AboveLauncher split_above(const ProcTable& table, uint32_t launcher,
                          const std::vector<ProcInfo>& above) {
  AboveLauncher out;
  uint32_t below = launcher;
  for (const ProcInfo& a : above) {
    auto it = table.children.find(a.pid);
    bool only_child = table.complete && it != table.children.end() && it->second.size() == 1 &&
                      it->second.front() == below;
    if (!only_child) {
      out.supervisor = a;
      return out;
    }
    out.wrappers.push_back(a);
    below = a.pid;
  }
  return out;
}

}  // namespace gt
