#include "model/owner_kind.h"

namespace gt {

const char* owner_kind_name(OwnerKind k) {
  switch (k) {
    case OwnerKind::kCgroup:
      return "cgroup";
    case OwnerKind::kContainerd:
      return "containerd";
    case OwnerKind::kCriO:
      return "cri-o";
    case OwnerKind::kDocker:
      return "docker";
    case OwnerKind::kKubernetesPod:
      return "kubernetes-pod";
    case OwnerKind::kPodman:
      return "podman";
    case OwnerKind::kSlurmJob:
      return "slurm-job";
    case OwnerKind::kSystemdUnit:
      return "systemd-unit";
    case OwnerKind::kSystemdUserUnit:
      return "systemd-user-unit";
    case OwnerKind::kUserSession:
      return "user-session";
  }
  return "?";  // not an enumerator
}

bool container_owner(OwnerKind k) {
  return k == OwnerKind::kDocker || k == OwnerKind::kPodman || k == OwnerKind::kContainerd ||
         k == OwnerKind::kCriO;
}

}  // namespace gt
