// Who owns a process, from the text of /proc/PID/cgroup: a systemd unit, a
// container, a Kubernetes pod, a Slurm job or a login session.
#pragma once

#include <optional>
#include <string_view>

#include "model/snapshot.h"

namespace gt {

/// Parses the text of /proc/PID/cgroup (v1 multi-line or v2 "0::/path") and
/// returns who owns the process, or nullopt for the root cgroup / nothing
/// recognisable. Prefers the v2 line ("0::") when it carries a non-root path;
/// on v1 prefers the pids/memory/cpu,cpuacct/name=systemd hierarchy lines that
/// carry a path, then any other line with a path.
///
/// Kinds: "kubernetes-pod" (name = pod UID with dashes, container_id = the
/// container id when the path names one), "slurm-job" (name = job id),
/// "docker", "containerd", "cri-o", "podman" (name = container id),
/// "user-session" (name "session-3 (uid 1000)"), "systemd-unit" (name = the
/// deepest .service or .scope; units under user@UID.service are reported the
/// same way), else "cgroup" (name = the path). cgroup_path is the raw path.
std::optional<ProcessOwner> parse_cgroup_owner(std::string_view cgroup_text);

}  // namespace gt
