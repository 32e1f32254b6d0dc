// Who started a process (model/snapshot.h ProcessOwner, model/server.h
// Server::owner_kind), from its cgroup path (sources/procfs/cgroup_owner.h).
// Renderers and the stop commands print it through owner_kind_name; the JSON
// reader reads the same names back; every other layer compares the enum.
#pragma once

#include <array>

namespace gt {

/// Declared in the order of the names (alphabetical), so anything ordered
/// by the kind orders as it did by the word.
enum class OwnerKind {
  kCgroup,           ///< none of the below: name = the cgroup path
  kContainerd,       ///< name = container id
  kCriO,             ///< name = container id
  kDocker,           ///< name = container id
  kKubernetesPod,    ///< name = pod uid
  kPodman,           ///< name = container id
  kSlurmJob,         ///< name = job id
  kSystemdUnit,      ///< a system unit: name = the unit
  kSystemdUserUnit,  ///< a unit of a user's manager (user@UID.service); set on
                     ///< servers only (sources/procfs/servers.cc), from a
                     ///< systemd-unit owner under /user@
  kUserSession,      ///< name "session-3 (uid 1000)"
};
inline constexpr std::array kOwnerKinds{
    OwnerKind::kCgroup,     OwnerKind::kContainerd,    OwnerKind::kCriO,
    OwnerKind::kDocker,     OwnerKind::kKubernetesPod, OwnerKind::kPodman,
    OwnerKind::kSlurmJob,   OwnerKind::kSystemdUnit,   OwnerKind::kSystemdUserUnit,
    OwnerKind::kUserSession};
/// "cgroup", "containerd", "cri-o", "docker", "kubernetes-pod", "podman",
/// "slurm-job", "systemd-unit", "systemd-user-unit", "user-session".
const char* owner_kind_name(OwnerKind k);

/// A container runtime's container (docker, podman, containerd, cri-o):
/// named by a container id, shown by its first 12 characters.
bool container_owner(OwnerKind k);

}  // namespace gt
