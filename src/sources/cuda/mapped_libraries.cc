#include "sources/cuda/mapped_libraries.h"

#include <algorithm>
#include <map>

#include "sources/cuda/library_version.h"
#include "sources/cuda/read_node_file.h"

namespace gt {
namespace {

constexpr std::string_view kDeleted = " (deleted)";
constexpr std::string_view kDriverBases[] = {"libcuda.so", "libnvidia-ml.so",
                                             "libnvidia-ptxjitcompiler.so"};

/// The path field of a maps line: what follows the fifth field (inode),
/// which may hold spaces; empty for an anonymous mapping.
std::string_view path_field(std::string_view line) {
  size_t at = 0;
  for (int field = 0; field < 5; ++field) {
    at = line.find_first_not_of(' ', at);
    if (at == std::string_view::npos) return {};
    at = line.find(' ', at);
    if (at == std::string_view::npos) return {};
  }
  at = line.find_first_not_of(' ', at);
  return at == std::string_view::npos ? std::string_view{} : line.substr(at);
}

/// The driver library's base name ("libcuda.so") of `file`, or empty.
std::string_view driver_base(std::string_view file) {
  for (std::string_view base : kDriverBases) {
    if (file.starts_with(base) && (file.size() == base.size() || file[base.size()] == '.'))
      return base;
  }
  return {};
}

std::string who_words(uint32_t pid, const std::optional<std::string>& comm) {
  return "pid " + std::to_string(pid) + " (" + comm.value_or("?") + ")";
}

/// A process found by the scan: its name read here.
std::string who_of(const FsRoot& root, uint32_t pid) {
  return who_words(pid, root.read_optional_trimmed("/proc/" + std::to_string(pid) + "/comm"));
}

/// A process NVML lists: its name as the GPU stage read it, its memory
/// summed over GPUs.
struct NvmlProcess {
  std::optional<std::string> name;
  std::optional<uint64_t> memory;
};

std::map<uint32_t, NvmlProcess> nvml_processes(const NodeSnapshot& snap, bool& listed) {
  std::map<uint32_t, NvmlProcess> out;
  listed = false;
  for (const GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    listed = true;
    for (const GpuProcess& p : *g.processes) {
      if (!p.visible) continue;
      NvmlProcess& e = out[p.pid];
      if (!e.name) e.name = p.name;
      if (p.used_memory_bytes) e.memory = e.memory.value_or(0) + *p.used_memory_bytes;
    }
  }
  return out;
}

/// What could not be read, said once: the first few in words, then a count.
struct Unread {
  size_t count = 0;
  std::string said;
  void add(const std::string& why) {
    if (++count <= 4) said += (said.empty() ? "" : "; ") + why;
  }
  void note_into(std::vector<std::string>& notes) const {
    if (count == 0) return;
    notes.push_back("driver libraries mapped: " + std::to_string(count) +
                    " processes' maps not read, so nothing proves what they run on (" + said +
                    (count > 4 ? "; and " + std::to_string(count - 4) + " more" : "") + ")");
  }
};

/// Reads one process's maps; its driver libraries, or null when they cannot
/// be read (another user's process, too large, not a file): no proof either
/// way, said. A process gone meanwhile is not said.
std::optional<ProcessMappings> mappings_of(const FsRoot& root, uint32_t pid, Unread& unread,
                                           uint64_t& bytes) {
  const std::string path = "/proc/" + std::to_string(pid) + "/maps";
  Result<std::string> maps = read_node_file(root, path, kMaxMapsBytes, "a process's maps");
  if (!maps) {
    if (maps.error().kind != ErrorKind::kNotFound) unread.add(maps.error().message);
    return std::nullopt;
  }
  bytes += maps->size();
  ProcessMappings m;
  m.pid = pid;
  m.libraries = parse_driver_mappings(*maps);
  return m;
}

std::vector<uint32_t> all_pids(const FsRoot& root) {
  std::vector<uint32_t> pids;
  Result<std::vector<std::string>> names = root.list("/proc");
  if (!names) return pids;
  for (const std::string& n : *names) {
    if (n.empty() || n.size() > 10 ||
        !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const unsigned long v = std::stoul(n);
    if (v > 0 && v <= UINT32_MAX) pids.push_back(static_cast<uint32_t>(v));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

/// Without NVML's lists: every process whose maps names a driver library.
void scan_without_nvml(const FsRoot& root, CudaReadiness& r) {
  uint64_t bytes = 0;
  size_t scanned = 0;
  Unread unread;
  for (uint32_t pid : all_pids(root)) {
    if (++scanned > kMaxScannedProcesses || bytes > kMaxScannedBytes) {
      r.notes.push_back("driver libraries mapped: the scan of /proc stopped after " +
                        std::to_string(scanned - 1) + " processes (bound reached: " +
                        std::to_string(kMaxScannedProcesses) + " processes or " +
                        std::to_string(kMaxScannedBytes >> 20) + " MiB of maps)");
      break;
    }
    std::optional<ProcessMappings> m = mappings_of(root, pid, unread, bytes);
    if (!m || m->libraries.empty()) continue;
    if (r.mapped.size() >= kMaxMappedProcesses) break;
    m->who = who_of(root, pid);
    r.mapped.push_back(std::move(*m));
  }
  unread.note_into(r.notes);
}

}  // namespace

std::vector<MappedLibrary> parse_driver_mappings(std::string_view maps) {
  std::vector<MappedLibrary> out;
  size_t start = 0;
  while (start < maps.size()) {
    size_t end = maps.find('\n', start);
    if (end == std::string_view::npos) end = maps.size();
    std::string_view path = path_field(maps.substr(start, end - start));
    start = end + 1;
    MappedLibrary lib;
    lib.deleted = path.ends_with(kDeleted);
    if (lib.deleted) path.remove_suffix(kDeleted.size());
    if (!path.starts_with('/')) continue;
    const std::string_view file = path.substr(path.rfind('/') + 1);
    const std::string_view base = driver_base(file);
    if (base.empty()) continue;
    lib.path = std::string(path);
    if (std::any_of(out.begin(), out.end(),
                    [&](const MappedLibrary& m) { return m.path == lib.path; }))
      continue;
    lib.version = version_from_file_name(file, base);
    out.push_back(std::move(lib));
  }
  return out;
}

void read_mapped_libraries(const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r) {
  bool listed = false;
  const std::map<uint32_t, NvmlProcess> gpu = nvml_processes(snap, listed);
  if (!listed && !snap.nvml.initialized) return scan_without_nvml(root, r);
  uint64_t bytes = 0;
  Unread unread;
  for (const auto& [pid, p] : gpu) {
    if (r.mapped.size() >= kMaxMappedProcesses) break;
    std::optional<ProcessMappings> m = mappings_of(root, pid, unread, bytes);
    if (!m) continue;
    m->who = who_words(pid, p.name);
    m->gpu_memory_bytes = p.memory;
    r.mapped.push_back(std::move(*m));
  }
  unread.note_into(r.notes);
}

}  // namespace gt
