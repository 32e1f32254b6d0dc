#include "sources/cuda/runtime_build.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "model/cuda_driver_table.h"
#include "model/server.h"
#include "sources/cuda/python_search_path.h"
#include "util/proc_environ.h"

namespace gt {
namespace {

/// Where one stack's files are, as the process sees them, and the prefix
/// under which it reads them ("/proc/PID/root" for a running process, so a
/// container's paths are read in its own root; "" for --python).
struct StackPlaces {
  std::string via;
  std::optional<std::string> site_packages;
  std::optional<std::string> prefix;       ///< the environment's (conda-meta/)
  std::optional<std::string> cudart_file;  ///< a mapped libcudart.so.X.Y.Z
  bool torch_mapped = false;               ///< site_packages holds a mapped libtorch_cuda.so
};

std::string_view path_before(std::string_view s, std::string_view marker) {
  size_t at = s.find(marker);
  return at == std::string_view::npos ? std::string_view{} : s.substr(0, at);
}

std::string base_name_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

/// What one mapped file says about the stack.
void note_mapping(std::string_view path, StackPlaces& p) {
  if (std::string_view site = path_before(path, "/torch/lib/libtorch_cuda.so"); !site.empty()) {
    p.site_packages = std::string(site);
    p.torch_mapped = true;
  } else if (std::string_view w = path_before(path, "/nvidia/cuda_runtime/lib/libcudart.so");
             !w.empty() && !p.site_packages)
    p.site_packages = std::string(w);
  if (std::string_view pre = path_before(path, "/lib/python3"); !pre.empty() && !p.prefix)
    p.prefix = std::string(pre);
  const std::string name = base_name_of(path);
  if (name.starts_with("libcudart.so.") && parse_cuda_release(name.substr(13)) &&
      std::count(name.begin(), name.end(), '.') >= 4)
    p.cudart_file = std::string(path);
}

/// The places from /proc/PID/maps (each line's path starts at its first '/').
StackPlaces places_from_maps(const std::string& maps, uint32_t pid) {
  StackPlaces p;
  p.via = fmt::format("/proc/{}/root", pid);
  size_t at = 0;
  while (at < maps.size()) {
    size_t end = maps.find('\n', at);
    std::string_view line = std::string_view(maps).substr(at, end - at);
    if (size_t slash = line.find('/'); slash != std::string_view::npos) {
      std::string_view path = line.substr(slash);
      if (path.ends_with(" (deleted)")) path.remove_suffix(10);
      note_mapping(path, p);
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return p;
}

std::optional<std::string> quoted_after_equals(std::string_view line) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view v = line.substr(eq + 1);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
  if (v == "None") return std::string();
  if (v.size() < 2 || (v.front() != '\'' && v.front() != '"') || v.back() != v.front())
    return std::nullopt;
  return std::string(v.substr(1, v.size() - 2));
}

/// The value of the first `name = ...` / `name: T = ...` line.
std::optional<std::string> py_assignment(const std::string& text, std::string_view name) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = std::string_view(text).substr(at, end - at);
    if (line.starts_with(name) && line.size() > name.size() &&
        (line[name.size()] == ' ' || line[name.size()] == '=' || line[name.size()] == ':'))
      return quoted_after_equals(line);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

bool from_torch(const FsRoot& root, const StackPlaces& p, CudaRuntimeBuild& b) {
  if (!p.site_packages) return false;
  const std::string file = *p.site_packages + "/torch/version.py";
  Result<std::string> text = root.read(p.via + file);
  if (!text) {
    // Absent where no torch was mapped: the stack is another (a wheel, CuPy).
    if (text.error().kind != ErrorKind::kNotFound)
      b.notes.push_back("cannot read " + file + ": " + text.error().message);
    else if (p.torch_mapped)
      b.notes.push_back(file + " not found beside the mapped libtorch_cuda.so");
    return false;
  }
  std::optional<std::string> cuda = torch_cuda_of(*text);
  std::string version = py_assignment(*text, "__version__").value_or("");
  if (!cuda) {
    b.notes.push_back(file + " has no cuda = '<major>.<minor>' line that parses");
    return false;
  }
  b.source = fmt::format("torch {}({})", version.empty() ? "" : version + " ", file);
  if (cuda->empty()) {
    b.notes.push_back("torch is a CPU-only build (cuda = None in " + file + ")");
    return true;
  }
  b.cuda_version = *cuda;
  return true;
}

bool from_wheel(const FsRoot& root, const StackPlaces& p, CudaRuntimeBuild& b) {
  if (!p.site_packages) return false;
  Result<std::vector<std::string>> names = root.list(p.via + *p.site_packages);
  if (!names) return false;
  for (const std::string& n : *names) {
    if (!n.starts_with("nvidia_cuda_runtime_cu") || !n.ends_with(".dist-info")) continue;
    size_t dash = n.find('-');
    if (dash == std::string::npos) continue;
    std::string version = n.substr(dash + 1, n.size() - dash - 1 - 10);
    if (std::optional<CudaRelease> r = parse_cuda_release(version)) {
      b.cuda_version = fmt::format("{}.{}", r->major, r->minor);
      b.source = fmt::format("{} {} ({}/{})", n.substr(0, dash), version, *p.site_packages, n);
      return true;
    }
    b.notes.push_back(*p.site_packages + "/" + n + ": the version does not parse");
  }
  return false;
}

/// "12" of "cupy_cuda12x-13.3.0.dist-info", "jax_cuda12_plugin-0.4.35.dist-info"
/// or "jax_cuda12_pjrt-...": wheels that name only the CUDA major they
/// were built for; null for any other name.
std::optional<int> major_only_wheel(const std::string& n) {
  for (std::string_view prefix : {"cupy_cuda", "jax_cuda"}) {
    if (!n.starts_with(prefix) || !n.ends_with(".dist-info")) continue;
    size_t i = prefix.size(), digits = 0;
    while (i + digits < n.size() && std::isdigit(static_cast<unsigned char>(n[i + digits])))
      ++digits;
    if (digits == 0 || digits > 2) return std::nullopt;
    const std::string_view rest = std::string_view(n).substr(i + digits);
    if (!(rest.starts_with("x-") || rest.starts_with("_plugin-") || rest.starts_with("_pjrt-")))
      return std::nullopt;
    return std::stoi(n.substr(i, digits));
  }
  return std::nullopt;
}

/// CuPy's and JAX's CUDA wheels: judged as the least release of their
/// major (X.0), which minor-version compatibility lets run on any driver
/// of that major; a note says that only the major is known.
bool from_major_wheel(const FsRoot& root, const StackPlaces& p, CudaRuntimeBuild& b) {
  if (!p.site_packages) return false;
  Result<std::vector<std::string>> names = root.list(p.via + *p.site_packages);
  if (!names) return false;
  for (const std::string& n : *names) {
    std::optional<int> major = major_only_wheel(n);
    if (!major) continue;
    b.cuda_version = fmt::format("{}.0", *major);
    b.source = fmt::format("{} ({}/{})", n.substr(0, n.size() - 10), *p.site_packages, n);
    b.notes.push_back(
        fmt::format("{} names only CUDA {}: judged as {}.0, the least release of that major", n,
                    *major, *major));
    return true;
  }
  return false;
}

bool from_cudart(const StackPlaces& p, CudaRuntimeBuild& b) {
  if (!p.cudart_file) return false;
  std::optional<CudaRelease> r = parse_cuda_release(base_name_of(*p.cudart_file).substr(13));
  b.cuda_version = fmt::format("{}.{}", r->major, r->minor);
  b.source = "CUDA runtime " + *p.cudart_file;
  return true;
}

bool from_conda(const FsRoot& root, const StackPlaces& p, CudaRuntimeBuild& b) {
  if (!p.prefix) return false;
  Result<std::vector<std::string>> names = root.list(p.via + *p.prefix + "/conda-meta");
  if (!names) return false;
  for (const std::string& n : *names) {
    if (!n.starts_with("cudatoolkit-") || !n.ends_with(".json")) continue;
    std::string version = n.substr(12, n.find('-', 12) - 12);
    if (std::optional<CudaRelease> r = parse_cuda_release(version)) {
      b.cuda_version = fmt::format("{}.{}", r->major, r->minor);
      b.source = fmt::format("conda cudatoolkit {} ({}/conda-meta/{})", version, *p.prefix, n);
      return true;
    }
  }
  return false;
}

bool has_runtime_wheel(const FsRoot& root, const std::string& dir) {
  Result<std::vector<std::string>> names = root.list(dir);
  if (!names) return false;
  return std::any_of(names->begin(), names->end(), [](const std::string& n) {
    return (n.starts_with("nvidia_cuda_runtime_cu") && n.ends_with(".dist-info")) ||
           major_only_wheel(n);
  });
}

/// The directory of the search path the import finds the stack in: the
/// first holding torch, else the first holding the CUDA runtime wheel;
/// with `or_first`, else the first one (where a note is then said).
void choose_site(const FsRoot& root, const std::vector<std::string>& dirs, bool or_first,
                 StackPlaces& p) {
  for (const std::string& d : dirs)
    if (root.exists(p.via + d + "/torch/version.py")) return void(p.site_packages = d);
  for (const std::string& d : dirs)
    if (has_runtime_wheel(root, p.via + d)) return void(p.site_packages = d);
  if (or_first && !dirs.empty()) p.site_packages = dirs.front();
}

/// A running interpreter's search path (/proc/PID/exe, its environment),
/// when its maps named no site-packages: a stack not yet initialised.
void places_from_interpreter(const FsRoot& root, uint32_t pid, StackPlaces& p) {
  const std::string proc = fmt::format("/proc/{}", pid);
  std::optional<std::string> exe = root.read_link(proc + "/exe");
  if (!exe || !base_name_of(*exe).starts_with("python")) return;
  if (exe->ends_with(" (deleted)")) exe->resize(exe->size() - 10);
  PythonInterpreter py{p.via, *exe, {}};
  if (Result<std::string> env = root.read(proc + "/environ")) py.env = parse_environ(*env);
  choose_site(root, python_search_path(root, py), false, p);
  if (const size_t bin = exe->rfind("/bin/"); !p.prefix && bin != std::string::npos)
    p.prefix = exe->substr(0, bin);
}

void fill_from(const FsRoot& root, const StackPlaces& p, CudaRuntimeBuild& b) {
  if (from_torch(root, p, b) || from_wheel(root, p, b) || from_cudart(p, b) ||
      from_major_wheel(root, p, b) || from_conda(root, p, b))
    return;
  // Nothing said what it was built for: unknown, said so (never clean).
  if (b.notes.empty()) b.notes.push_back("no CUDA runtime found among its files");
}

std::optional<CudaRuntimeBuild> server_build(const FsRoot& root, const Server& sv) {
  CudaRuntimeBuild b;
  std::vector<std::string> unreadable;
  for (const ServerMember& m : sv.members) {
    const std::string maps_path = fmt::format("/proc/{}/maps", m.pid);
    Result<std::string> maps = root.read(maps_path);
    if (!maps) {  // gone (or a tree without it): nothing to say; else a note
      if (maps.error().kind != ErrorKind::kNotFound)
        unreadable.push_back(maps_path + ": " + maps.error().message);
      continue;
    }
    b.pid = m.pid;
    b.who = fmt::format("the {} server (pid {}, {})", sv.kind, m.pid, m.name.value_or("?"));
    StackPlaces p = places_from_maps(*maps, m.pid);
    if (!p.site_packages) places_from_interpreter(root, m.pid, p);
    fill_from(root, p, b);
    return b;
  }
  if (unreadable.empty()) return std::nullopt;
  b.who = fmt::format("the {} server", sv.kind);
  b.notes.push_back("its CUDA build is unknown: cannot read " + unreadable.front());
  return b;
}

/// --python PATH: its search path as the interpreter finds it (no
/// environment: no process runs it); PREFIX = PATH/../.. for conda-meta.
CudaRuntimeBuild python_build(const FsRoot& root, const std::string& python) {
  CudaRuntimeBuild b;
  b.who = "--python " + python;
  StackPlaces p;
  std::string bin = python.substr(0, python.rfind('/'));
  p.prefix = bin.substr(0, bin.rfind('/'));
  choose_site(root, python_search_path(root, PythonInterpreter{"", python, {}}), true, p);
  fill_from(root, p, b);
  return b;
}

}  // namespace

std::optional<std::string> torch_cuda_of(const std::string& version_py) {
  std::optional<std::string> v = py_assignment(version_py, "cuda");
  if (!v) return std::nullopt;
  if (v->empty()) return v;
  std::optional<CudaRelease> r = parse_cuda_release(*v);
  if (!r) return std::nullopt;
  return fmt::format("{}.{}", r->major, r->minor);
}

std::vector<CudaRuntimeBuild> read_runtime_builds(const FsRoot& root, const NodeSnapshot& snap,
                                                  const std::optional<std::string>& python) {
  std::vector<CudaRuntimeBuild> out;
  for (const Server& sv : snap.servers.value_or(std::vector<Server>{}))
    if (!sv.graphics_only)
      if (std::optional<CudaRuntimeBuild> b = server_build(root, sv)) out.push_back(*b);
  if (python) out.push_back(python_build(root, *python));
  return out;
}

}  // namespace gt
