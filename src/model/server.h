// Servers: the processes that hold GPU memory, grouped the way an operator
// thinks of them ("the SGLang server that sglang.service started at boot,
// TP=8 over GPUs 0-7"). One Server per launcher tree (the processes below
// one launcher in one cgroup), or per process when the tree cannot be read.
// Filled by sources/procfs/servers (or from a capture, per process); read
// by the checks, the plan, the renderers and `gpu-triage free` alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/container_info.h"
#include "model/describe.h"
#include "model/owner_kind.h"

namespace gt {

struct ProcessOwner;

/// One process of a server that NVML lists on at least one GPU.
struct ServerMember {
  uint32_t pid = 0;
  std::string type;  ///< "compute", "graphics" or "compute+graphics"
  std::optional<std::string> name;
  std::optional<std::string> cmdline;
  /// Its own memory on each GPU it appears on (index, bytes; null bytes
  /// where NVML could not say), in GPU order.
  std::vector<std::pair<uint32_t, std::optional<uint64_t>>> memory;
  std::optional<uint32_t> rank;  ///< RANK from its environment (torchrun, DeepSpeed), if readable
  bool operator==(const ServerMember&) const = default;
};

/// A process above a server's launcher, as read when the server was grouped.
struct ServerProcess {
  uint32_t pid = 0;
  std::string cmdline;
  bool operator==(const ServerProcess&) const = default;
};

/// Memory a server holds on one GPU: the sum of its members' own memory.
struct ServerGpu {
  uint32_t index = 0;
  std::optional<uint64_t> memory_bytes;  ///< null when no member's size is known
  bool operator==(const ServerGpu&) const = default;
};

struct Server {
  std::string id;           ///< stable within a report: "pid-3187" (root) or "pid-N"
  std::string kind;         ///< "SGLang", "vLLM", ..., "torchrun", else the launcher's name
  bool recognised = false;  ///< kind came from a known server / launcher pattern
  std::optional<uint32_t> root_pid;  ///< the launcher (top of the tree); null: not read
  std::optional<std::string> root_cmdline;
  std::vector<ServerMember> members;  ///< the processes NVML lists, by PID
  std::vector<ServerGpu> gpus;        ///< GPUs its members hold memory on, by index
  std::optional<std::string> model;   ///< --model-path / --model / positional
  std::optional<uint32_t> port;       ///< --port, or a listening TCP socket
  std::optional<uint32_t> tensor_parallel;
  std::optional<uint32_t> data_parallel;
  std::optional<uint32_t> pipeline_parallel;
  std::optional<uint32_t> expert_parallel;
  /// torchrun / DeepSpeed: processes in the whole job and on this node
  /// (their launchers know the world, not how the script splits it).
  std::optional<uint32_t> world_size;
  std::optional<uint32_t> local_world_size;
  /// Where the port came from: "--port", "default port", "OLLAMA_HOST",
  /// "PORT", "config FILE", "listening socket".
  std::optional<std::string> port_source;
  /// What could not be read about its identity and why (an unreadable
  /// environment or config file, a command line cut short).
  std::vector<std::string> identity_notes;
  /// Wrapper scripts and restart loops between its owner and its launcher
  /// (each has the next one down as its only child), outermost first: they
  /// are stopped before the launcher, or they would start it again.
  std::vector<ServerProcess> wrappers;
  /// The process above the launcher (and its wrappers) that also runs
  /// other servers or processes, or a supervisor daemon: the server's owner
  /// process, shown, never part of this server's stop.
  std::optional<ServerProcess> supervisor;
  /// Its launcher exited: the workers were adopted and their process
  /// group's leader is gone; root_pid is null and each worker is stopped.
  bool launcher_exited = false;
  std::optional<std::string> user;
  std::optional<int64_t> start_time_unix_s;  ///< the root's (else the oldest member's)
  std::optional<int64_t> started_after_boot_s;
  /// Started within kAutoStartWindowS of boot by a unit, container or
  /// restart policy: the signature of an auto-start, not a person.
  bool auto_started = false;
  std::optional<OwnerKind> owner_kind;    ///< ProcessOwner::kind, or kSystemdUserUnit
  std::optional<std::string> owner_name;  ///< unit name, container id, pod uid, job id
  /// What the owner does when the processes are stopped by a signal:
  /// "Restart=always" (systemd), "restart policy always" (Docker),
  /// "Kubernetes pod" (its controller recreates it); null: not known.
  std::optional<std::string> restart_policy;
  bool restarts_when_signalled = false;  ///< the policy above brings it back
  /// Its Docker container as the runtime records it (owner_kind docker).
  std::optional<ContainerInfo> container;
  /// The server is its container's main process: the container's PID 1 is
  /// its launcher, or leads to it through only children (a wrapper, an init
  /// like tini), so the container ends when it does. False when the PID 1
  /// runs other processes too (a start script that started it in the
  /// background); null when the container's PID 1 is not known.
  std::optional<bool> container_main;
  bool graphics_only = false;  ///< display server, compositor, browser...
  /// Why grouping stopped short (a /proc entry unreadable, a capture), if it did.
  std::optional<std::string> grouping_note;
  bool operator==(const Server&) const = default;
};

/// Seconds after boot within which a start by an owner counts as automatic.
inline constexpr int64_t kAutoStartWindowS = 300;

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<ServerMember> auto& m, auto& v) {
  v("pid", m.pid);
  v("type", m.type);
  v("name", m.name);
  v("cmdline", m.cmdline);
  v("memory", m.memory, PairKeys{"gpu_index", "memory_bytes"});
  v("rank", m.rank);
}

void describe(SelfOf<ServerProcess> auto& p, auto& v) {
  v("pid", p.pid);
  v("cmdline", p.cmdline);
}

void describe(SelfOf<ServerGpu> auto& g, auto& v) {
  v("index", g.index);
  v("memory_bytes", g.memory_bytes);
}

void describe(SelfOf<Server> auto& s, auto& v) {
  v("id", s.id);
  v("kind", s.kind);
  v("recognised", s.recognised);
  v("root_pid", s.root_pid);
  v("root_cmdline", s.root_cmdline);
  v("gpus", s.gpus);
  v("members", s.members);
  v("model", s.model);
  v("port", s.port);
  v("port_source", s.port_source);
  v("tensor_parallel", s.tensor_parallel);
  v("data_parallel", s.data_parallel);
  v("pipeline_parallel", s.pipeline_parallel);
  v("expert_parallel", s.expert_parallel);
  v("world_size", s.world_size);
  v("local_world_size", s.local_world_size);
  v("wrappers", s.wrappers);
  v("supervisor", s.supervisor);
  v("launcher_exited", s.launcher_exited);
  v("user", s.user);
  v("start_time", s.start_time_unix_s, TimeView{});
  v("start_time_unix_s", s.start_time_unix_s);
  v("started_after_boot_s", s.started_after_boot_s);
  v("auto_started", s.auto_started);
  v("owner_kind", s.owner_kind);
  v("owner_name", s.owner_name);
  v("restart_policy", s.restart_policy);
  v("restarts_when_signalled", s.restarts_when_signalled);
  v("container", s.container);
  v("container_main", s.container_main);
  v("graphics_only", s.graphics_only);
  v("grouping_note", s.grouping_note);
  v("identity_notes", s.identity_notes);
}

}  // namespace gt
