#include "sources/cuda/device_nodes.h"

#include <sys/stat.h>

#include <string_view>

#include "util/numeric.h"

namespace gt {
namespace {

enum class NodeKind { kCharDevice, kStandIn, kAbsent, kOther };

/// What is at `path` in the tree: a character device, a regular file
/// standing for one under a fixture root, nothing, or something else
/// (a directory, a regular file under "/").
NodeKind node_kind(const FsRoot& root, const std::string& path) {
  Result<std::string> real = root.resolve(path);
  if (!real) return NodeKind::kAbsent;
  struct stat st;
  if (::stat(real->c_str(), &st) != 0) return NodeKind::kAbsent;
  if (S_ISCHR(st.st_mode)) return NodeKind::kCharDevice;
  if (S_ISREG(st.st_mode) && root.root() != "/") return NodeKind::kStandIn;
  return NodeKind::kOther;
}

std::string_view minor_field_trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// "Device Minor:" of one information file; null when absent or not a number.
std::optional<uint32_t> device_minor(std::string_view text) {
  constexpr std::string_view kKey = "Device Minor:";
  size_t at = text.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  size_t end = text.find('\n', at);
  return parse_int<uint32_t>(
      minor_field_trimmed(text.substr(at + kKey.size(), end - at - kKey.size())));
}

/// GPUs the driver holds: (minor, bus id), with a note for each one whose
/// information cannot be read.
std::vector<std::pair<uint32_t, std::string>> driver_gpus(const FsRoot& root,
                                                          std::vector<std::string>& notes) {
  std::vector<std::pair<uint32_t, std::string>> out;
  Result<std::vector<std::string>> buses = root.list("/proc/driver/nvidia/gpus");
  if (!buses) return out;
  for (const std::string& bus : *buses) {
    const std::string file = "/proc/driver/nvidia/gpus/" + bus + "/information";
    Result<std::string> text = root.read(file);
    std::optional<uint32_t> minor = text ? device_minor(*text) : std::nullopt;
    if (!minor)
      notes.push_back(file + (text ? " has no Device Minor line" : " cannot be read"));
    else
      out.emplace_back(*minor, bus);
  }
  return out;
}

/// nvidia_uvm in /proc/modules (first word of a line), else
/// /sys/module/nvidia_uvm; null when neither can be read.
std::optional<bool> uvm_loaded(const FsRoot& root) {
  if (Result<std::string> mods = root.read("/proc/modules")) {
    const std::string text = "\n" + *mods;
    return text.find("\nnvidia_uvm ") != std::string::npos;
  }
  if (root.exists("/sys/module/nvidia_uvm")) return true;
  if (root.exists("/sys/module")) return false;
  return std::nullopt;
}

}  // namespace

bool node_present(const FsRoot& root, const std::string& path, std::vector<std::string>& notes) {
  NodeKind k = node_kind(root, path);
  if (k == NodeKind::kOther) notes.push_back(path + " exists but is not a character device");
  return k == NodeKind::kCharDevice || k == NodeKind::kStandIn;
}

bool tree_in_container(const FsRoot& root, const NodeSnapshot& snap) {
  if (root.exists("/.dockerenv") || root.exists("/run/.containerenv")) return true;
  for (const MountInfo& m : snap.mounts)
    if (m.path == "/" && m.fs_type == "overlay") return true;
  return false;
}

std::optional<CudaDeviceNodes> read_device_nodes(const FsRoot& root, const NodeSnapshot& snap) {
  CudaDeviceNodes d;
  const bool ctl = node_present(root, "/dev/nvidiactl", d.notes);
  if (!ctl && snap.nvml.initialized) return std::nullopt;
  std::vector<std::pair<uint32_t, std::string>> gpus = driver_gpus(root, d.notes);
  if (!ctl && gpus.empty()) return std::nullopt;  // no driver here: nvml.* says so
  d.nvidiactl = ctl;
  d.nvidia_uvm = node_present(root, "/dev/nvidia-uvm", d.notes);
  d.nvidia_uvm_tools = node_present(root, "/dev/nvidia-uvm-tools", d.notes);
  d.nvidia_caps = root.exists("/dev/nvidia-caps");
  d.uvm_module_loaded = uvm_loaded(root);
  for (const auto& [minor, bus] : gpus)
    if (!node_present(root, "/dev/nvidia" + std::to_string(minor), d.notes))
      d.missing_gpu_nodes.emplace_back(minor, bus);
  d.in_container = tree_in_container(root, snap);
  return d;
}

}  // namespace gt
