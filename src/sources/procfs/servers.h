// Groups the processes NVML lists into servers (model/server.h): the
// processes below one launcher in one cgroup are one server. Reads /proc
// for parents, start times and listening sockets, and the owner's restart
// policy (systemd unit files and drop-ins, Docker's hostconfig.json).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/server.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Servers of `snap`'s GPU processes, ordered by their first GPU. With
/// `root` null (a capture: that node's /proc was not read), or for a
/// process whose /proc entry cannot be read, each process is its own server
/// with a grouping_note saying why. Never throws; a process that exits
/// mid-read degrades the same way. Nullopt when no GPU's process list was
/// read (nothing is known about holders).
std::optional<std::vector<Server>> group_servers(const NodeSnapshot& snap, const FsRoot* root);

/// The owner's restart behaviour: "Restart=always" from a systemd unit
/// (its file, then drop-ins in <unit>.d/*.conf; a template for "a@b"),
/// "restart policy always" from Docker's hostconfig.json, "Kubernetes pod"
/// for a pod. `restarts` says whether a signal's stop is undone
/// (everything but Restart=no / policy "no"). Nullopt when not known.
struct RestartPolicy {
  std::string text;
  bool restarts = false;
};
/// A Docker container's restart policy as a RestartPolicy; nullopt when
/// its hostconfig.json was not read.
std::optional<RestartPolicy> docker_restart_policy(const ContainerInfo& c);
std::optional<RestartPolicy> owner_restart_policy(const FsRoot& root, OwnerKind kind,
                                                  const std::string& name);

/// TCP ports PID listens on (its socket inodes in /proc/PID/fd matched
/// against /proc/PID/net/tcp and tcp6 in LISTEN state), ascending.
std::vector<uint32_t> listening_ports(const FsRoot& root, uint32_t pid);

}  // namespace gt
