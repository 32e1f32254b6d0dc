#include "sources/procfs/nvidia_smi_binary.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "sources/cuda/library_version.h"
#include "util/read_capped.h"

namespace gt {
namespace {

constexpr std::string_view kMarker{"\0<NVSMIV\0", 9};
constexpr const char* kImagePath =
    "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
    "/usr/bin:/sbin:/bin";

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> dirs;
  size_t at = 0;
  while (at <= path.size()) {
    size_t colon = path.find(':', at);
    if (colon == std::string_view::npos) colon = path.size();
    std::string_view dir = path.substr(at, colon - at);
    // Only absolute directories: "" and "." mean the working directory.
    if (dir.starts_with('/')) dirs.emplace_back(dir);
    at = colon + 1;
  }
  return dirs;
}

std::optional<std::string> release_of_file(const FsRoot& root, const std::string& path) {
  Result<int> fd = root.open(path, O_RDONLY | O_CLOEXEC);
  if (!fd) return std::nullopt;
  Result<std::string> bytes = read_fd_capped(*fd, path, kMaxNvidiaSmiBytes, "nvidia-smi");
  ::close(*fd);
  if (!bytes) return std::nullopt;
  return nvidia_smi_release_in(*bytes);
}

}  // namespace

std::vector<std::string> nvidia_smi_search_path(const FsRoot& root) {
  const char* own = std::getenv("PATH");
  if (root.root() == "/" && own && *own) return split_path(own);
  return split_path(kImagePath);
}

std::optional<std::string> nvidia_smi_release_in(std::string_view bytes) {
  const size_t at = bytes.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t start = bytes.rfind('\0', at == 0 ? 0 : at - 1);
  if (start == std::string_view::npos || start + 1 >= at) return std::nullopt;
  const std::string_view v = bytes.substr(start + 1, at - start - 1);
  if (!is_driver_release(v)) return std::nullopt;
  return std::string(v);
}

namespace {

/// Every nvidia-smi in `dirs` as seen under `via` (a container's root, or
/// "" for the node's), each real file once.
void read_on_path(const FsRoot& root, const std::string& via, const std::vector<std::string>& dirs,
                  const std::optional<std::string>& container, std::vector<NvidiaSmiBinary>& out) {
  std::vector<std::string> seen;  // real files, so a link is not counted twice
  for (const std::string& dir : dirs) {
    const std::string path = (dir.ends_with('/') ? dir : dir + "/") + "nvidia-smi";
    Result<struct stat> st = root.stat(via + path);
    // A regular file; its mode is not judged: a bundle's tree keeps the
    // file, not its execute bit.
    if (!st || !S_ISREG(st->st_mode)) continue;
    Result<std::string> real = root.resolve(via + path);
    const std::string key = real ? *real : path;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out.push_back({path, release_of_file(root, via + path), container});
  }
}

}  // namespace

std::vector<NvidiaSmiBinary> read_nvidia_smi_binaries(const FsRoot& root) {
  std::vector<NvidiaSmiBinary> out;
  read_on_path(root, "", nvidia_smi_search_path(root), std::nullopt, out);
  return out;
}

void add_container_nvidia_smi(const FsRoot& root, const std::vector<Server>& servers,
                              std::vector<NvidiaSmiBinary>& out) {
  std::vector<std::string> done;
  for (const Server& sv : servers) {
    if (!sv.container || !sv.container->init_pid) continue;
    const ContainerInfo& c = *sv.container;
    if (std::find(done.begin(), done.end(), c.id) != done.end()) continue;
    done.push_back(c.id);
    // The name `docker exec` takes: its name, else its short id.
    const std::string label = c.name.value_or(c.id.substr(0, 12));
    read_on_path(root, "/proc/" + std::to_string(*c.init_pid) + "/root",
                 split_path(c.path_env.value_or(kImagePath)), label, out);
  }
}

}  // namespace gt
