// Grouping GPU processes into servers. A server such as SGLang or vLLM runs
// a launcher that forks one worker per GPU; NVML lists only the workers. The
// launcher is found by climbing parents within the worker's cgroup
// (process_tree.h); every worker under it is one server. What the server
// is, serves and listens on comes from the launcher's and workers' command
// lines (holders/identity.h) and their sockets.
#include "sources/procfs/servers.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

#include "holders/identity.h"
#include "holders/server_flags.h"
#include "sources/procfs/cgroup_owner.h"
#include "sources/procfs/docker_container.h"
#include "sources/procfs/process_info.h"
#include "sources/procfs/process_tree.h"
#include "sources/procfs/server_identity.h"
#include "sources/procfs/server_tree.h"
#include "util/numeric.h"

namespace gt {
namespace {

/// One PID as NVML listed it, over every GPU it appears on.
struct Holder {
  const GpuProcess* first = nullptr;
  bool compute = false, graphics = false;
  std::vector<std::pair<uint32_t, std::optional<uint64_t>>> memory;
};

std::vector<std::pair<uint32_t, Holder>> collect_holders(const NodeSnapshot& snap) {
  std::vector<std::pair<uint32_t, Holder>> out;
  std::map<uint32_t, size_t> at;
  for (const GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    for (const GpuProcess& p : *g.processes) {
      auto [it, fresh] = at.emplace(p.pid, out.size());
      if (fresh) out.push_back({p.pid, Holder{&p}});
      Holder& h = out[it->second].second;
      h.compute = h.compute || p.type.find("compute") != std::string::npos;
      h.graphics = h.graphics || p.type.find("graphics") != std::string::npos;
      h.memory.push_back({g.index, p.used_memory_bytes});
    }
  }
  return out;
}

std::string type_of(const Holder& h) {
  if (h.compute && h.graphics) return "compute+graphics";
  return h.graphics ? "graphics" : "compute";
}

std::optional<int64_t> start_of(const ProcInfo& p, std::optional<int64_t> btime) {
  return start_unix_s(btime, p.start_ticks);
}

bool service_owner(OwnerKind kind) {
  return kind != OwnerKind::kUserSession && kind != OwnerKind::kCgroup;
}

/// Wrappers, the owner process above, or the launcher that exited.
void place_in_tree(Server& s, const HolderPlace& place, const ProcTable& table) {
  if (place.orphan_of_pgrp) {
    s.launcher_exited = true;
    s.grouping_note = fmt::format(
        "its launcher exited: these {} worker(s) of process group {} were adopted by PID 1 or a "
        "subreaper, and nothing restarts or stops them but a signal to each",
        s.members.size(), *place.orphan_of_pgrp);
    return;
  }
  if (!s.root_pid) return;
  AboveLauncher a = split_above(table, *s.root_pid, place.above);
  for (auto it = a.wrappers.rbegin(); it != a.wrappers.rend(); ++it)
    s.wrappers.push_back({it->pid, it->cmdline});
  if (a.supervisor)
    s.supervisor = ServerProcess{a.supervisor->pid, a.supervisor->cmdline};
  else if (place.end == ClimbEnd::kSupervisor && place.boundary)
    s.supervisor = ServerProcess{place.boundary->pid, place.boundary->cmdline};
  if (!table.complete && !place.above.empty())
    s.identity_notes.push_back(
        "the process table could not be read in full, so no process above the launcher is "
        "taken as its wrapper");
}

void sum_gpus(Server& s) {
  std::map<uint32_t, std::optional<uint64_t>> by_gpu;
  for (const ServerMember& m : s.members)
    for (const auto& [index, bytes] : m.memory) {
      auto [it, fresh] = by_gpu.emplace(index, bytes);
      if (!fresh && bytes) it->second = it->second.value_or(0) + *bytes;
    }
  for (const auto& [index, bytes] : by_gpu) s.gpus.push_back({index, bytes});
}

void set_owner(Server& s, const GpuProcess& first, const FsRoot* root) {
  if (!first.owner) return;
  s.owner_kind = first.owner->kind;
  s.owner_name = first.owner->name;
  // A unit under user@UID.service belongs to that user's manager, not the
  // system's: its unit files are elsewhere and `systemctl stop` would reach
  // a system unit of the same name.
  if (first.owner->kind == OwnerKind::kSystemdUnit &&
      first.owner->cgroup_path.find("/user@") != std::string::npos) {
    s.owner_kind = OwnerKind::kSystemdUserUnit;
    return;
  }
  if (!root) return;
  if (first.owner->kind == OwnerKind::kDocker) {
    s.container = read_docker_container(*root, first.owner->name);
    if (!s.container)
      s.identity_notes.push_back(
          "Docker's record of container " + first.owner->name.substr(0, 12) +
          " (/var/lib/docker/containers/ID/config.v2.json, hostconfig.json) could not be read: "
          "when it was created, what its PID 1 runs and its restart policy are unknown");
    else if (!s.container->created_unix_s)
      s.identity_notes.push_back("Docker's record of container " + first.owner->name.substr(0, 12) +
                                 " gives no readable creation time: whether it was made after "
                                 "the job last wrote is unknown");
  }
  if (std::optional<RestartPolicy> r =
          s.container ? docker_restart_policy(*s.container)
                      : owner_restart_policy(*root, first.owner->kind, first.owner->name)) {
    s.restart_policy = r->text;
    s.restarts_when_signalled = r->restarts;
  }
}

void set_times(Server& s, const std::optional<ProcInfo>& root_info, std::optional<int64_t> btime,
               const std::vector<const GpuProcess*>& firsts) {
  if (root_info) s.start_time_unix_s = start_of(*root_info, btime);
  if (!s.start_time_unix_s)
    for (const GpuProcess* p : firsts)
      if (p->start_time_unix_s &&
          (!s.start_time_unix_s || *p->start_time_unix_s < *s.start_time_unix_s))
        s.start_time_unix_s = p->start_time_unix_s;
  if (s.start_time_unix_s && btime && *s.start_time_unix_s >= *btime)
    s.started_after_boot_s = *s.start_time_unix_s - *btime;
  s.auto_started = s.started_after_boot_s && *s.started_after_boot_s <= kAutoStartWindowS &&
                   s.owner_kind && (service_owner(*s.owner_kind) || s.restarts_when_signalled);
}

/// The value of `Restart=` in a unit file's text ("Restart = always" and
/// leading blanks allowed, as systemd parses it; the last one wins), if any.
std::optional<std::string> restart_setting(const std::string& text) {
  std::optional<std::string> value;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line.compare(i, 7, "Restart") != 0) continue;
    size_t eq = line.find_first_not_of(" \t", i + 7);
    if (eq == std::string::npos || line[eq] != '=') continue;  // RestartSec= etc.
    size_t v = line.find_first_not_of(" \t", eq + 1);
    size_t end = line.find_last_not_of(" \t\r");
    value = v == std::string::npos || end < v ? "" : line.substr(v, end - v + 1);
  }
  return value;
}

// Unit search path, most specific first (systemd.unit(5)).
constexpr const char* kUnitDirs[] = {
    "/etc/systemd/system.control/",   "/run/systemd/transient/", "/run/systemd/generator.early/",
    "/etc/systemd/system/",           "/run/systemd/system/",    "/run/systemd/generator/",
    "/usr/local/lib/systemd/system/", "/lib/systemd/system/",    "/usr/lib/systemd/system/",
    "/run/systemd/generator.late/"};

/// systemd's Restart= for a system unit: the unit file first found on the
/// search path (a template "a@.service" for "a@b.service"), then every
/// drop-in of the unit and its template in file-name order across the
/// search path (a name in a more specific directory masks the same name in
/// later ones). Unknown when no unit file is found: then it may restart.
std::optional<RestartPolicy> systemd_restart_policy(const FsRoot& root, const std::string& name) {
  std::vector<std::string> names = {name};
  size_t at = name.find('@'), dot = name.rfind('.');
  if (at != std::string::npos && dot != std::string::npos && dot > at)
    names.push_back(name.substr(0, at + 1) + name.substr(dot));  // "a@.service"
  std::optional<std::string> value;
  bool found = false;
  for (const char* dir : kUnitDirs) {
    for (const std::string& unit : names) {
      Result<std::string> text = root.read(std::string(dir) + unit);
      if (!text) continue;
      found = true;
      value = restart_setting(*text);
      break;
    }
    if (found) break;
  }
  if (!found) return std::nullopt;
  std::map<std::string, std::string> dropins;               // file name -> path (first dir wins)
  for (auto it = names.rbegin(); it != names.rend(); ++it)  // template's, then the unit's
    for (const char* dir : kUnitDirs) {
      const std::string d = std::string(dir) + *it + ".d/";
      Result<std::vector<std::string>> confs = root.list(d);
      if (!confs) continue;
      for (const std::string& c : *confs)
        if (c.ends_with(".conf")) dropins.emplace(c + "\n" + *it, d + c);
    }
  // Name order decides; for one name the unit's own drop-in comes after the template's.
  std::vector<std::pair<std::string, std::string>> ordered(dropins.begin(), dropins.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& x, const auto& y) {
    return x.first.substr(0, x.first.find('\n')) < y.first.substr(0, y.first.find('\n'));
  });
  for (const auto& [key, path] : ordered)
    if (Result<std::string> text = root.read(path))
      if (std::optional<std::string> v = restart_setting(*text)) value = v;
  std::string policy = value.value_or("no");
  if (policy.empty()) policy = "no";
  return RestartPolicy{"Restart=" + policy, policy != "no"};
}

/// Docker's record checked against the process tree: its PID 1 must be a
/// process of the container whose parent is not (the runtime's shim), and
/// the container is created before its PID 1 starts. What the tree does
/// not bear out is unknown, and said.
void check_container_record(Server& s, const FsRoot& root, std::optional<int64_t> btime) {
  ContainerInfo& c = *s.container;
  if (!c.init_pid) return;
  const std::string id12 = c.id.substr(0, 12);
  auto in_container = [&](const ProcInfo& p) {
    std::optional<ProcessOwner> o = parse_cgroup_owner(p.cgroup);
    return o && o->kind == OwnerKind::kDocker && o->name == c.id;
  };
  std::optional<ProcInfo> init = read_proc(root, *c.init_pid);
  std::optional<ProcInfo> parent = init ? read_proc(root, init->ppid) : std::nullopt;
  if (!init || !in_container(*init) || (parent && in_container(*parent))) {
    s.identity_notes.push_back(fmt::format(
        "Docker's record names PID {} as container {}'s PID 1, which the process tree does "
        "not bear out: whether the container ends with the server is not known",
        *c.init_pid, id12));
    c.init_pid.reset();
    return;
  }
  const std::optional<int64_t> started = start_of(*init, btime);
  if (c.created_unix_s && started && *c.created_unix_s > *started + 2) {
    s.identity_notes.push_back(
        fmt::format("Docker's record says container {} was created after its PID 1 started: its "
                    "creation time is taken as unknown",
                    id12));
    c.created_unix_s.reset();
  }
}

/// Whether the container's PID 1 leads to the launcher through only
/// children; null when its PID 1 or the launcher is not in the table.
std::optional<bool> leads_only_to(const ProcTable& table, uint32_t init, uint32_t launcher) {
  uint32_t at = init;
  for (int depth = 0; depth < 64; ++depth) {
    if (at == launcher) return true;
    if (!table.procs.count(at)) return std::nullopt;
    auto kids = table.children.find(at);
    if (kids == table.children.end() || kids->second.size() != 1) return false;
    at = kids->second.front();
  }
  return std::nullopt;
}

/// What brings a containerised server back after a signal: nothing the
/// runtime sees when its container runs on without it; the unit that
/// creates the container (or Docker's policy) when the server is the
/// container's main process.
void container_restart(Server& s, const FsRoot& root, const ProcTable& table) {
  if (s.container->init_pid && s.root_pid && table.complete)
    s.container_main = leads_only_to(table, *s.container->init_pid, *s.root_pid);
  const std::optional<bool> main = s.container_main;
  if (main == false) {
    s.restarts_when_signalled = false;
    return;
  }
  if (main != true || !s.container->created_by_unit) return;
  // Either brings it back: the unit makes a new container, Docker's policy
  // restarts this one.
  const std::string& unit = *s.container->created_by_unit;
  if (std::optional<RestartPolicy> r = systemd_restart_policy(root, unit)) {
    if (r->restarts)
      s.restart_policy = unit + " " + r->text + ", which creates the container again";
    s.restarts_when_signalled = r->restarts || s.restarts_when_signalled;
  }
}

}  // namespace

std::optional<std::vector<Server>> group_servers(const NodeSnapshot& snap, const FsRoot* root) {
  if (std::none_of(snap.gpus.begin(), snap.gpus.end(),
                   [](const GpuState& g) { return g.processes.has_value(); }))
    return std::nullopt;
  std::vector<std::pair<uint32_t, Holder>> holders = collect_holders(snap);
  const std::optional<int64_t> btime = root ? read_boot_time_unix_s(*root) : std::nullopt;
  const std::set<uint32_t> protect =
      root && root->root() == "/" ? self_and_ancestors(*root) : std::set<uint32_t>{};
  const ProcTable table = root ? read_proc_table(*root) : ProcTable{};
  // Key: the launcher when /proc could be read ("pgrp-N" for workers whose
  // launcher exited), else the PID alone.
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  std::map<std::string, std::optional<std::string>> notes;
  std::map<std::string, std::optional<uint32_t>> roots;
  std::map<std::string, HolderPlace> places;
  for (size_t i = 0; i < holders.size(); ++i) {
    const auto& [pid, h] = holders[i];
    std::string key;
    if (!root) {
      key = "pid-" + std::to_string(pid);
      notes[key] = "from a capture: that node's process tree was not read";
    } else if (!h.first->visible || !read_proc(*root, pid)) {
      key = "pid-" + std::to_string(pid);
      notes[key] = h.first->visibility_note.value_or("PID " + std::to_string(pid) +
                                                     " cannot be read in /proc");
    } else {
      HolderPlace place = place_holder(*root, table, pid, protect);
      if (place.orphan_of_pgrp) {
        key = "pgrp-" + std::to_string(*place.orphan_of_pgrp);
        roots[key] = std::nullopt;
      } else {
        key = "pid-" + std::to_string(place.launcher);
        roots[key] = place.launcher;
      }
      places.emplace(key, std::move(place));
    }
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(i);
  }
  std::vector<Server> out;
  for (const std::string& key : order) {
    Server s;
    s.id = key;
    s.root_pid = roots.count(key) ? roots[key] : std::nullopt;
    s.grouping_note = notes.count(key) ? notes[key] : std::nullopt;
    std::vector<const GpuProcess*> firsts;
    for (size_t i : groups[key]) {
      const auto& [pid, h] = holders[i];
      firsts.push_back(h.first);
      s.members.push_back({pid, type_of(h), h.first->name, h.first->cmdline, h.memory});
      if (!s.user) s.user = h.first->user;
    }
    std::sort(s.members.begin(), s.members.end(),
              [](const ServerMember& a, const ServerMember& b) { return a.pid < b.pid; });
    std::optional<ProcInfo> root_info =
        s.root_pid && root ? read_proc(*root, *s.root_pid) : std::nullopt;
    if (root_info) s.root_cmdline = root_info->cmdline;
    if (auto p = places.find(key); p != places.end()) place_in_tree(s, p->second, table);
    identify_server(s, root_info, root);
    if (!s.port && root && s.root_pid) {
      std::vector<uint32_t> ports = listening_ports(*root, *s.root_pid);
      for (size_t i = 0; ports.empty() && i < s.members.size(); ++i)
        ports = listening_ports(*root, s.members[i].pid);
      if (!ports.empty()) {
        s.port = ports.front();
        s.port_source = "listening socket";
      }
    }
    if (!s.port && s.recognised && (s.port = default_port(s.kind))) s.port_source = "default port";
    sum_gpus(s);
    set_owner(s, *firsts.front(), root);
    if (s.container && s.container->name)
      s.container->created_by_unit = unit_running_container(*root, table, *s.container->name);
    if (s.container) {
      check_container_record(s, *root, btime);
      container_restart(s, *root, table);
    }
    set_times(s, root_info, btime, firsts);
    s.graphics_only = std::all_of(s.members.begin(), s.members.end(),
                                  [](const ServerMember& m) { return m.type == "graphics"; });
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const Server& a, const Server& b) {
    return a.gpus.front().index < b.gpus.front().index;
  });
  return out;
}

std::optional<RestartPolicy> docker_restart_policy(const ContainerInfo& c) {
  if (!c.restart_policy) return std::nullopt;
  return RestartPolicy{"Docker restart policy " + *c.restart_policy, *c.restart_policy != "no"};
}

std::optional<RestartPolicy> owner_restart_policy(const FsRoot& root, OwnerKind kind,
                                                  const std::string& name) {
  if (kind == OwnerKind::kKubernetesPod)
    return RestartPolicy{"Kubernetes pod: the kubelet or the pod's controller restarts it", true};
  if (kind == OwnerKind::kDocker) {
    std::optional<ContainerInfo> c = read_docker_container(root, name);
    return c ? docker_restart_policy(*c) : std::nullopt;
  }
  if (kind != OwnerKind::kSystemdUnit) return std::nullopt;
  return systemd_restart_policy(root, name);
}

std::vector<uint32_t> listening_ports(const FsRoot& root, uint32_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  std::set<std::string> inodes;
  Result<std::vector<std::string>> fds = root.list(dir + "/fd");
  if (!fds) return {};
  for (size_t i = 0; i < fds->size() && i < 65536; ++i) {
    std::optional<std::string> link = root.read_link(dir + "/fd/" + (*fds)[i]);
    if (link && link->starts_with("socket:[") && link->ends_with("]"))
      inodes.insert(link->substr(8, link->size() - 9));
  }
  std::set<uint32_t> ports;
  for (const char* table : {"/net/tcp", "/net/tcp6"}) {
    Result<std::string> text = root.read(dir + table);
    if (!text) continue;
    std::istringstream lines(*text);
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      std::istringstream f(line);
      std::string sl, local, remote, state, skip, inode;
      f >> sl >> local >> remote >> state;
      for (int k = 0; k < 5; ++k) f >> skip;  // tx:rx tr:when retrnsmt uid timeout
      f >> inode;
      if (state != "0A" || !inodes.count(inode)) continue;
      size_t colon = local.rfind(':');
      uint32_t port = 0;
      if (colon == std::string::npos) continue;
      auto [end, ec] =
          std::from_chars(local.data() + colon + 1, local.data() + local.size(), port, 16);
      if (ec == std::errc() && port > 0 && port <= 65535) ports.insert(port);
    }
  }
  return {ports.begin(), ports.end()};
}

}  // namespace gt
