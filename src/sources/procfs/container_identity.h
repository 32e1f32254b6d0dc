// Which container this tool runs in, or the host: the id the runtime gave it
// (from /proc/self/cgroup as parse_cgroup_owner reads it, else from
// /proc/self/mountinfo, where docker bind-mounts
// /var/lib/docker/containers/<id>/hostname and containerd its sandbox's
// files even under a private cgroup namespace), and when it was created
// (the start of its PID 1). Read under the FsRoot, so a fixture tree holds
// a container.
#pragma once

#include <optional>
#include <string_view>

#include "model/fingerprint.h"
#include "util/fs_root.h"

namespace gt {

/// The container's id, where it came from, and (in a container) its
/// creation time; id "host" when neither file names a container.
ContainerPrint read_container_identity(const FsRoot& root);

/// The first 64-hex-digit container id in mountinfo text that a runtime's
/// own directory names (".../containers/<id>/", ".../sandboxes/<id>/");
/// nullopt when none.
std::optional<std::string> container_id_in_mountinfo(std::string_view mountinfo);

}  // namespace gt
