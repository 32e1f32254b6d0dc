// Which container this tool runs in, or the host: the id the runtime gave it
// (from /proc/self/cgroup as parse_cgroup_owner reads it, else from
// /proc/self/mountinfo, where docker bind-mounts
// /var/lib/docker/containers/<id>/hostname and containerd its sandbox's
// files even under a private cgroup namespace), and when it was created
// (the start of its PID 1), and the image it was created from where the
// runtime leaves that readable inside (podman's /run/.containerenv; docker
// leaves /.dockerenv empty, so its image is unknown). Read under the
// FsRoot, so a fixture tree holds a container.
#pragma once

#include <optional>
#include <string_view>

#include "model/fingerprint.h"
#include "util/fs_root.h"

namespace gt {

/// The container's id, where it came from, and (in a container) its
/// creation time and image; id "host" when no file names a container and
/// none marks one. Null in a container whose id no file names (a
/// /.dockerenv or /run/.containerenv with no readable id): unknown, never
/// "host".
std::optional<ContainerPrint> read_container_identity(const FsRoot& root);

/// What podman's /run/.containerenv says of the container (lines
/// `key="value"`): each value only when it is well formed (id and imageid
/// 64 lowercase hex digits; image printable ASCII without spaces, at most
/// kMaxImageNameBytes), else null.
struct ContainerEnv {
  std::optional<std::string> id;
  std::optional<std::string> image;
  std::optional<std::string> image_id;
};
inline constexpr size_t kMaxImageNameBytes = 512;
/// The most of /run/.containerenv read (podman writes a few hundred bytes).
inline constexpr size_t kMaxContainerEnvBytes = 16 << 10;
ContainerEnv parse_containerenv(std::string_view text);

/// /run/.containerenv read inside the root (a regular file, at most
/// kMaxContainerEnvBytes); all null when absent, not a file or unreadable.
ContainerEnv read_containerenv(const FsRoot& root);

/// The first 64-hex-digit container id in mountinfo text that a runtime's
/// own directory names (".../containers/<id>/", ".../sandboxes/<id>/");
/// nullopt when none.
std::optional<std::string> container_id_in_mountinfo(std::string_view mountinfo);

}  // namespace gt
