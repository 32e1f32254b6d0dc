// The NVIDIA kernel module exposes its version two ways.
// /sys/module/nvidia/version holds just "590.48.01\n" (the module's
// MODULE_VERSION, which sysfs shows for any loaded module declaring one). The
// /proc/driver/nvidia/version is a banner whose wording changed over time:
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.48.01  Release ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  ...
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.57.02  Tue Jul 13 ...
// so we take the first word that looks like a dotted version rather than a
// fixed column. Neither exists when the module is not loaded.
//
// The user-space driver ships as libnvidia-ml.so.<version> with a
// libnvidia-ml.so.1 symlink; resolving the symlink and reading the suffix
// gives the library's version even when nvmlInit fails.
//
// Reloading the modules (the fix for a version mismatch without a reboot)
// needs to know what holds them: /sys/module/NAME/refcnt counts users (open
// /dev/nvidia* files, dependent modules), /sys/module/NAME/holders/ lists
// the modules that depend on it (nvidia_uvm, nvidia_modeset, nvidia_peermem,
// gdrdrv hold nvidia; nvidia_drm holds nvidia_modeset). The daemons that
// keep the devices open are found by their /proc/PID/comm (15 characters).
#include "sources/procfs/driver_version.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "sources/procfs/cgroup_owner.h"

namespace gt {
namespace {

// "590.48.01", "565.57": two or more non-empty all-digit parts.
bool is_dotted_version(std::string_view s) {
  int parts = 0;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot - start);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (!digits) return false;
    ++parts;
    if (dot == std::string_view::npos) return parts >= 2;
    start = dot + 1;
  }
}

// The first dotted-version word of the "NVRM version:" line.
std::optional<std::string> version_from_banner(std::string_view banner) {
  size_t at = banner.find("NVRM version:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view line = banner.substr(at);
  line = line.substr(0, line.find('\n'));
  size_t i = 0;
  while (i < line.size()) {
    size_t start = line.find_first_not_of(" \t", i);
    if (start == std::string_view::npos) break;
    size_t end = std::min(line.find_first_of(" \t", start), line.size());
    std::string_view word = line.substr(start, end - start);
    if (is_dotted_version(word)) return std::string(word);
    i = end;
  }
  return std::nullopt;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

std::optional<uint32_t> to_u32(const std::optional<std::string>& text) {
  uint32_t v = 0;
  if (!text || !all_digits(*text)) return std::nullopt;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || ptr != text->data() + text->size()) return std::nullopt;
  return v;
}

// A loaded module: its directory has a refcnt (built-in ones do not).
std::optional<KernelModule> read_module(const FsRoot& root, const std::string& name) {
  const std::string dir = "/sys/module/" + name;
  if (!root.exists(dir + "/refcnt")) return std::nullopt;
  KernelModule m;
  m.name = name;
  m.refcnt = to_u32(root.read_optional_trimmed(dir + "/refcnt"));
  if (Result<std::vector<std::string>> h = root.list(dir + "/holders")) m.holders = *h;
  return m;
}

int preference(const std::string& name) {
  static const char* kOrder[] = {"nvidia_peermem", "nvidia_fs",      "nvidia_uvm",
                                 "nvidia_drm",     "nvidia_modeset", "nvidia"};
  for (int i = 0; i < 6; ++i)
    if (name == kOrder[i]) return i + 1;
  return 0;  // anything else (gdrdrv, nvidia_vgpu_vfio) goes first
}

// Each module after all its holders; among the ready ones, by preference.
std::vector<KernelModule> unload_order(std::vector<KernelModule> mods) {
  std::vector<KernelModule> out;
  std::set<std::string> done;
  while (!mods.empty()) {
    auto ready = [&](const KernelModule& m) {
      return std::all_of(m.holders.begin(), m.holders.end(), [&](const std::string& h) {
        return done.count(h) || std::none_of(mods.begin(), mods.end(),
                                             [&](const KernelModule& o) { return o.name == h; });
      });
    };
    auto best = mods.end();
    for (auto it = mods.begin(); it != mods.end(); ++it)
      if (ready(*it) && (best == mods.end() || preference(it->name) < preference(best->name)))
        best = it;
    if (best == mods.end()) best = mods.begin();  // a cycle cannot happen; do not loop
    done.insert(best->name);
    out.push_back(std::move(*best));
    mods.erase(best);
  }
  return out;
}

const char* service_of(const std::string& comm) {
  if (comm == "nvidia-persiste" || comm == "nvidia-persistenced") return "nvidia-persistenced";
  if (comm == "nv-fabricmanage" || comm == "nv-fabricmanager") return "Fabric Manager";
  if (comm == "nv-hostengine") return "DCGM";
  return nullptr;
}

}  // namespace

std::vector<KernelModule> read_nvidia_modules(const FsRoot& root) {
  Result<std::vector<std::string>> names = root.list("/sys/module");
  if (!names) return {};
  std::vector<KernelModule> mods;
  std::vector<std::string> todo;
  for (const std::string& n : *names)
    if (n == "nvidia" || n.starts_with("nvidia_")) todo.push_back(n);
  std::set<std::string> seen;
  while (!todo.empty() && seen.size() < 64) {
    std::string name = todo.back();
    todo.pop_back();
    if (!seen.insert(name).second) continue;
    std::optional<KernelModule> m = read_module(root, name);
    if (!m) continue;
    for (const std::string& h : m->holders) todo.push_back(h);
    mods.push_back(std::move(*m));
  }
  return unload_order(std::move(mods));
}

std::vector<NvidiaService> read_nvidia_services(const FsRoot& root) {
  Result<std::vector<std::string>> entries = root.list("/proc");
  if (!entries) return {};
  std::vector<NvidiaService> out;
  for (const std::string& e : *entries) {
    std::optional<uint32_t> pid = to_u32(e);
    if (!pid) continue;
    std::optional<std::string> comm = root.read_optional_trimmed("/proc/" + e + "/comm");
    const char* what = comm ? service_of(*comm) : nullptr;
    if (!what) continue;
    NvidiaService s{what, *pid, *comm, std::nullopt};
    if (Result<std::string> cg = root.read("/proc/" + e + "/cgroup"))
      if (std::optional<ProcessOwner> o = parse_cgroup_owner(*cg);
          o && o->kind == OwnerKind::kSystemdUnit)
        s.unit = o->name;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.pid < b.pid; });
  return out;
}

std::optional<std::string> read_kernel_module_version(const FsRoot& root) {
  std::optional<std::string> sys = root.read_optional_trimmed("/sys/module/nvidia/version");
  if (sys && is_dotted_version(*sys)) return sys;
  Result<std::string> banner = root.read("/proc/driver/nvidia/version");
  if (!banner) return std::nullopt;
  return version_from_banner(*banner);
}

std::optional<std::string> library_version_from_filename(std::string_view filename) {
  size_t slash = filename.rfind('/');
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  size_t so = filename.find(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  std::string_view suffix = filename.substr(so + 4);
  if (!is_dotted_version(suffix)) return std::nullopt;
  return std::string(suffix);
}

}  // namespace gt
