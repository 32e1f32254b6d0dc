// Docker's own record of a container, read on the host under the FsRoot:
// /var/lib/docker/containers/<id>/config.v2.json (the daemon's
// container.Container, moby's container/container.go: ID, Created, Name,
// Path, Args, Config.Image, State.Pid, MountPoints) and hostconfig.json
// (RestartPolicy.Name, AutoRemove: `docker run --restart`, `--rm`); and the
// systemd unit whose `docker run --name NAME` client runs it (a unit that
// runs the client in the foreground keeps it for the container's life, and
// creates the container anew each time it starts).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/container_info.h"
#include "sources/procfs/server_tree.h"
#include "util/fs_root.h"

namespace gt {

/// The most of either file read (config.v2.json holds the environment
/// and labels: tens of kB).
inline constexpr size_t kMaxDockerConfigBytes = 4 << 20;

/// Fills `c` from config.v2.json's text: each field only when present and
/// of its type (else left null). False when the text is not a JSON object.
bool parse_docker_config(std::string_view text, ContainerInfo& c);

/// Fills `c`'s restart policy and auto-remove from hostconfig.json's text;
/// false when the text is not a JSON object.
bool parse_docker_hostconfig(std::string_view text, ContainerInfo& c);

/// Go's RFC 3339 time with optional fraction ("2026-01-01T00:00:29.81Z",
/// "...+02:00") as Unix seconds; nullopt when malformed.
std::optional<int64_t> parse_rfc3339(std::string_view s);

/// Container `id`'s record; nullopt when neither file can be read and
/// parsed (one unread leaves its fields null).
std::optional<ContainerInfo> read_docker_container(const FsRoot& root, const std::string& id);

/// The container name a `docker run` / `podman run` command line gives
/// (`--name NAME`, `--name=NAME`, global options before `run`, `docker
/// container run`); nullopt for any other command or no name.
std::optional<std::string> run_container_name(const std::vector<std::string>& argv);

/// The systemd unit (of the system manager) whose running `docker run
/// --name NAME` client created container NAME, from the processes in
/// `table`; nullopt when none is running.
std::optional<std::string> unit_running_container(const FsRoot& root, const ProcTable& table,
                                                  std::string_view name);

}  // namespace gt
