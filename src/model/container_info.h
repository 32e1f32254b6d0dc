// A GPU server's container as its runtime records it on the host (Docker's
// /var/lib/docker/containers/<id>/config.v2.json and hostconfig.json, read
// by sources/procfs/docker_container): when it was created, what its PID 1
// runs, what it mounts, whether it restarts or is removed when it stops,
// and the systemd unit that creates it. Read by the stop advice
// (holders/stop.cc), the change checks and the renderers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

/// One of its mounts: the host's path and where the container sees it.
struct ContainerMount {
  std::string source;
  std::string destination;
  bool operator==(const ContainerMount&) const = default;
};

struct ContainerInfo {
  std::string id;                         ///< 64 hex digits
  std::optional<std::string> name;        ///< without Docker's leading '/'
  std::optional<int64_t> created_unix_s;  ///< "Created": a new id and time each `docker run`
  std::optional<std::string> command;     ///< "Path" and "Args": what its PID 1 runs
  std::optional<std::string> image;       ///< Config.Image as given to `docker run`
  /// PATH from Config.Env (the only variable kept: the others may hold
  /// secrets): where a shell in the container finds its programs.
  std::optional<std::string> path_env;
  std::optional<uint32_t> init_pid;           ///< State.Pid: its PID 1 as the host numbers it
  std::vector<ContainerMount> mounts;         ///< MountPoints, by destination
  std::optional<std::string> restart_policy;  ///< "no", "always", "unless-stopped", "on-failure"
  std::optional<bool> auto_remove;            ///< `docker run --rm`: removed when it stops
  /// The systemd unit whose `docker run --name NAME` client runs it (the
  /// unit creates it anew each time it starts); null when none was found.
  std::optional<std::string> created_by_unit;
  bool operator==(const ContainerInfo&) const = default;
};

/// "specforge (7c3e9a1b2d4f)", or the short id alone: how a report names it.
inline std::string container_name_id(const ContainerInfo& c) {
  return c.name ? *c.name + " (" + c.id.substr(0, 12) + ")" : c.id.substr(0, 12);
}

// Each type's fields once, in the report's order (model/describe.h).
void describe(SelfOf<ContainerMount> auto& m, auto& v) {
  v("source", m.source);
  v("destination", m.destination);
}

void describe(SelfOf<ContainerInfo> auto& c, auto& v) {
  v("id", c.id);
  v("name", c.name);
  v("created", c.created_unix_s, TimeView{});
  v("created_unix_s", c.created_unix_s);
  v("command", c.command);
  v("image", c.image);
  v("path_env", c.path_env);
  v("init_pid", c.init_pid);
  v("mounts", c.mounts);
  v("restart_policy", c.restart_policy);
  v("auto_remove", c.auto_remove);
  v("created_by_unit", c.created_by_unit);
}

}  // namespace gt
