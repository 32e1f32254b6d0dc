#include "sources/procfs/container_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/procfs/cgroup_owner.h"
#include "sources/procfs/process_info.h"
#include "util/read_capped.h"

namespace gt {

namespace {

bool hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool names_container(OwnerKind k) {
  return k == OwnerKind::kDocker || k == OwnerKind::kContainerd || k == OwnerKind::kCriO ||
         k == OwnerKind::kPodman || k == OwnerKind::kKubernetesPod;
}

/// The container's PID 1 started when the container did (the runtime starts
/// it right after creating the container's namespaces).
std::optional<int64_t> pid1_start_unix_s(const FsRoot& root) {
  Result<std::string> stat = root.read("/proc/1/stat");
  if (!stat) return std::nullopt;
  std::optional<ProcStat> ps = parse_proc_stat(*stat);
  if (!ps) return std::nullopt;
  return start_unix_s(read_boot_time_unix_s(root), ps->start_time_ticks);
}

/// The text between the quotes of `"value"`; nullopt when unquoted, or
/// holding a quote, a backslash (an escape podman's %q wrote), a space or
/// anything outside printable ASCII.
std::optional<std::string_view> quoted(std::string_view v) {
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::nullopt;
  v = v.substr(1, v.size() - 2);
  for (char c : v)
    if (c <= ' ' || c > '~' || c == '"' || c == '\\') return std::nullopt;
  return v;
}

}  // namespace

ContainerEnv parse_containerenv(std::string_view text) {
  ContainerEnv e;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    const std::optional<std::string_view> v = quoted(line.substr(eq + 1));
    if (!v || v->empty()) continue;
    if (key == "id" && hex64(*v)) e.id = std::string(*v);
    if (key == "imageid" && hex64(*v)) e.image_id = std::string(*v);
    if (key == "image" && v->size() <= kMaxImageNameBytes) e.image = std::string(*v);
  }
  return e;
}

ContainerEnv read_containerenv(const FsRoot& root) {
  // O_NONBLOCK: a FIFO in its place does not wait for a writer.
  Result<int> fd = root.open("/run/.containerenv", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (!fd) return {};
  struct stat st {};
  Result<std::string> text = Error{ErrorKind::kMalformed, "not a regular file"};
  if (::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode))
    text = read_fd_capped(*fd, "/run/.containerenv", kMaxContainerEnvBytes, "/run/.containerenv");
  ::close(*fd);
  if (!text) return {};
  return parse_containerenv(*text);
}

std::optional<std::string> container_id_in_mountinfo(std::string_view mountinfo) {
  for (std::string_view dir : {std::string_view("/containers/"), std::string_view("/sandboxes/")}) {
    size_t at = 0;
    while ((at = mountinfo.find(dir, at)) != std::string_view::npos) {
      at += dir.size();
      std::string_view id = mountinfo.substr(at, 64);
      if (hex64(id) && mountinfo.substr(at + 64, 1) == "/") return std::string(id);
    }
  }
  return std::nullopt;
}

std::optional<ContainerPrint> read_container_identity(const FsRoot& root) {
  ContainerPrint c;
  if (Result<std::string> cg = root.read("/proc/self/cgroup"))
    if (std::optional<ProcessOwner> o = parse_cgroup_owner(*cg); o && names_container(o->kind)) {
      c.id = o->container_id.value_or(o->name);
      c.id_from = "/proc/self/cgroup: " + o->cgroup_path;
    }
  if (c.id == kHostNotContainer)
    if (Result<std::string> mi = root.read("/proc/self/mountinfo"))
      if (std::optional<std::string> id = container_id_in_mountinfo(*mi)) {
        c.id = *id;
        c.id_from = "/proc/self/mountinfo";
      }
  const ContainerEnv env = read_containerenv(root);
  if (c.id == kHostNotContainer && env.id) {
    c.id = *env.id;
    c.id_from = "/run/.containerenv";
  }
  if (c.id == kHostNotContainer) {
    // A runtime's marker without an id: a container, which one unknown.
    if (root.exists("/.dockerenv") || root.exists("/run/.containerenv")) return std::nullopt;
    return c;
  }
  c.created_unix_s = pid1_start_unix_s(root);
  // The image of this container only: a .containerenv naming another id
  // is not about it.
  if (!env.id || *env.id == c.id) {
    c.image = env.image;
    c.image_id = env.image_id;
  }
  return c;
}

}  // namespace gt
