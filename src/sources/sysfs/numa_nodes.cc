#include "sources/sysfs/numa_nodes.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace gt {
namespace {

constexpr const char* kNodeDir = "/sys/devices/system/node";
/// More nodes than any machine has (the kernel's MAX_NUMNODES is 1024).
constexpr size_t kMaxNodes = 1024;

/// "node12" -> 12; other names (possible, online, has_cpu...) -> nullopt.
std::optional<uint32_t> node_id(const std::string& name) {
  if (!name.starts_with("node") || name.size() == 4) return std::nullopt;
  uint32_t id = 0;
  const char* begin = name.data() + 4;
  const char* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(begin, end, id);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return id;
}

}  // namespace

std::optional<std::vector<NumaNode>> read_numa_nodes(const FsRoot& root) {
  Result<std::vector<std::string>> names = root.list(kNodeDir);
  if (!names) return std::nullopt;
  std::vector<NumaNode> out;
  for (const std::string& name : *names) {
    std::optional<uint32_t> id = node_id(name);
    if (!id || out.size() >= kMaxNodes) continue;
    NumaNode n;
    n.id = *id;
    Result<std::string> text = root.read(std::string(kNodeDir) + "/" + name + "/cpulist");
    if (text) n.cpus = parse_cpu_list(*text);
    out.push_back(std::move(n));
  }
  std::sort(out.begin(), out.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return out;
}

}  // namespace gt
