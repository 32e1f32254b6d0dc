#include "sources/cuda/cuda_libraries.h"

#include <set>

#include "sources/cuda/library_search.h"
#include "sources/cuda/read_node_file.h"
#include "util/proc_environ.h"

namespace gt {
namespace {

const char* const kDriverSonames[] = {"libcuda.so.1", "libnvidia-ml.so.1",
                                      "libnvidia-ptxjitcompiler.so.1"};
constexpr uint64_t kMaxEnvironBytesRead = 4ull << 20;
constexpr size_t kMaxProcessContexts = 64;

/// LD_LIBRARY_PATH's entries within the bounds; notes what was left out.
std::vector<std::string> bounded_dirs(const std::vector<std::string>& all, LoaderContext& c,
                                      bool& cut) {
  std::vector<std::string> dirs;
  size_t too_long = 0;
  for (const std::string& d : all) {
    if (dirs.size() == kMaxLibraryPathDirs) break;
    if (d.size() > kMaxLibraryPathDirBytes)
      ++too_long;
    else
      dirs.push_back(d);
  }
  if (too_long)
    c.notes.push_back(std::to_string(too_long) + " LD_LIBRARY_PATH entr" +
                      (too_long == 1 ? "y" : "ies") + " longer than " +
                      std::to_string(kMaxLibraryPathDirBytes) +
                      " bytes skipped (the loader cannot open such a path either)");
  cut = dirs.size() + too_long < all.size();
  if (cut)
    c.notes.push_back("LD_LIBRARY_PATH has " + std::to_string(all.size()) +
                      " entries: only the first " + std::to_string(kMaxLibraryPathDirs) +
                      " were searched (the bound)");
  return dirs;
}

LoaderContext libs_resolve_context(const FsRoot& root, const LoaderFiles& files,
                                   std::optional<uint32_t> pid, std::string who,
                                   std::optional<std::string> ld_library_path) {
  LoaderContext c;
  c.pid = pid;
  c.who = std::move(who);
  c.ld_library_path = std::move(ld_library_path);
  bool cut = false;
  const std::vector<std::string> dirs =
      c.ld_library_path ? bounded_dirs(split_library_path(*c.ld_library_path), c, cut)
                        : std::vector<std::string>{};
  for (const char* soname : kDriverSonames) {
    ResolvedLibrary l = resolve_library(root, files, dirs, soname);
    // Not in the entries searched: an entry past the bound may hold it,
    // so where the loader finds it is unknown (never the cache's guess).
    if (cut && l.found_via != std::optional<std::string>("LD_LIBRARY_PATH")) {
      l = ResolvedLibrary{};
      l.soname = soname;
      l.notes.push_back("not in the first " + std::to_string(kMaxLibraryPathDirs) +
                        " LD_LIBRARY_PATH entries, and the rest were not searched: where the "
                        "loader finds it is unknown");
    }
    c.libraries.push_back(std::move(l));
  }
  return c;
}

/// The GPU processes visible here, with their names, in PID order.
std::vector<std::pair<uint32_t, std::string>> libs_gpu_processes(const NodeSnapshot& snap) {
  std::set<std::pair<uint32_t, std::string>> seen;
  for (const GpuState& g : snap.gpus) {
    if (!g.processes) continue;
    for (const GpuProcess& p : *g.processes) {
      if (p.visible) seen.insert({p.pid, p.name.value_or("?")});
    }
  }
  return {seen.begin(), seen.end()};
}

}  // namespace

void read_cuda_libraries(const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r,
                         std::optional<std::chrono::steady_clock::time_point> deadline) {
  const LoaderFiles files = read_loader_files(root);
  LoaderContext job = libs_resolve_context(root, files, std::nullopt, "a new job", std::nullopt);
  job.notes = files.notes;
  job.notes.insert(job.notes.end(), files.conf.notes.begin(), files.conf.notes.end());
  r.loaders.push_back(std::move(job));
  size_t contexts = 0;
  const std::vector<std::pair<uint32_t, std::string>> procs = libs_gpu_processes(snap);
  for (size_t i = 0; i < procs.size(); ++i) {
    const auto& [pid, name] = procs[i];
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      r.notes.push_back("the deadline (--timeout) was reached: the libraries of " +
                        std::to_string(procs.size() - i) + " GPU process(es) were not resolved");
      break;
    }
    const std::string environ = "/proc/" + std::to_string(pid) + "/environ";
    Result<std::string> env =
        read_node_file(root, environ, kMaxEnvironBytesRead, "a process environment");
    if (!env) {
      r.notes.push_back("environment of pid " + std::to_string(pid) +
                        " not readable (another user's process?): " + env.error().message);
      continue;
    }
    const std::map<std::string, std::string> vars = parse_environ(*env);
    const auto lib_path = vars.find("LD_LIBRARY_PATH");
    if (lib_path == vars.end() || split_library_path(lib_path->second).empty())
      continue;  // loads what a new job loads
    if (++contexts > kMaxProcessContexts) {
      r.notes.push_back("more than " + std::to_string(kMaxProcessContexts) +
                        " GPU processes with an LD_LIBRARY_PATH: the rest not resolved");
      break;
    }
    r.loaders.push_back(libs_resolve_context(
        root, files, pid, "pid " + std::to_string(pid) + " (" + name + ")", lib_path->second));
  }
}

}  // namespace gt
