#include "sources/cuda/nccl_limits.h"

#include <fmt/format.h>

#include <limits>
#include <sstream>

#include "holders/identity.h"
#include "model/server.h"
#include "util/fs_space.h"
#include "util/numeric.h"

namespace gt {

std::optional<uint64_t> read_dev_shm_bytes(const FsRoot& root) {
  if (root.root() != "/") {
    std::optional<std::string> text = root.read_optional_trimmed("/.gt-fixture/dev-shm-bytes");
    return text ? parse_int<uint64_t>(*text) : std::nullopt;
  }
  Result<FsSpace> space = read_fs_space("/dev/shm", "/dev/shm");
  if (!space) return std::nullopt;
  return space->total_bytes;
}

std::optional<uint64_t> memlock_soft_bytes(const std::string& limits) {
  constexpr std::string_view kKey = "Max locked memory";
  size_t at = limits.find(kKey);
  if (at == std::string::npos) return std::nullopt;
  size_t end = limits.find('\n', at);
  std::istringstream words(limits.substr(at + kKey.size(), end - at - kKey.size()));
  std::string soft;
  words >> soft;
  if (soft == "unlimited") return std::numeric_limits<uint64_t>::max();
  return parse_int<uint64_t>(soft);
}

std::vector<ProcessLimits> read_server_limits(const FsRoot& root, const NodeSnapshot& snap,
                                              std::vector<std::string>& notes) {
  std::vector<ProcessLimits> out;
  for (const Server& sv : snap.servers.value_or(std::vector<Server>{})) {
    if (sv.graphics_only || sv.members.empty()) continue;
    const ServerMember& m = sv.members.front();
    ProcessLimits l;
    l.pid = m.pid;
    l.who = fmt::format("the {} (pid {}, {})", server_noun(sv.kind, sv.recognised), m.pid,
                        m.name.value_or("?"));
    l.tensor_parallel = sv.tensor_parallel;
    for (const ServerMember& r : sv.members)
      if (r.type.find("compute") != std::string::npos) l.rank_pids.push_back(r.pid);
    const std::string file = fmt::format("/proc/{}/limits", m.pid);
    Result<std::string> text = root.read(file);
    if (text) {
      l.memlock_bytes = memlock_soft_bytes(*text);
      if (!l.memlock_bytes) notes.push_back(file + " has no Max locked memory line that parses");
    } else if (text.error().kind != ErrorKind::kNotFound) {
      notes.push_back("cannot read " + file + ": " + text.error().message);
    }
    out.push_back(l);
  }
  return out;
}

std::optional<std::vector<std::string>> read_rdma_devices(const FsRoot& root) {
  if (!root.exists("/sys/class")) return std::nullopt;
  Result<std::vector<std::string>> names = root.list("/sys/class/infiniband");
  return names ? *names : std::vector<std::string>{};
}

}  // namespace gt
