#include "sources/procfs/container_identity.h"

#include <unistd.h>

#include "sources/procfs/cgroup_owner.h"
#include "sources/procfs/process_info.h"

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
  std::optional<int64_t> btime = read_boot_time_unix_s(root);
  Result<std::string> stat = root.read("/proc/1/stat");
  if (!btime || !stat) return std::nullopt;
  std::optional<ProcStat> ps = parse_proc_stat(*stat);
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (!ps || hz <= 0) return std::nullopt;
  return *btime + static_cast<int64_t>(ps->start_time_ticks / static_cast<uint64_t>(hz));
}

}  // namespace

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

ContainerPrint read_container_identity(const FsRoot& root) {
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
  if (c.id != kHostNotContainer) c.created_unix_s = pid1_start_unix_s(root);
  return c;
}

}  // namespace gt
