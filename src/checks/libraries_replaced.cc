// driver.libraries_replaced: the driver's user space changed on disk under
// running processes. A process keeps the files it mapped (/proc/PID/maps
// names them "(deleted)" once replaced or removed) and keeps working; a new
// process loads what is on disk now. When that is another release than the
// running kernel module, NVML and every new CUDA job fail (docs/physics.md
// R1, R2) while the old servers run on, and a server restarted in place fails
// too: drain, then reboot to load the installed module.
#include <fmt/format.h>

#include <set>

#include "checks/checks.h"
#include "checks/cuda_library_checks.h"
#include "util/plural.h"
#include "util/shell_word.h"

namespace gt {
namespace {

constexpr size_t kNamed = 4;  // processes named in the title

/// The deleted files those processes map, each once.
std::set<std::string> deleted_files(const std::vector<const ProcessMappings*>& ps) {
  std::set<std::string> files;
  for (const ProcessMappings* m : ps)
    for (const MappedLibrary& l : m->libraries)
      if (l.deleted) files.insert(l.path);
  return files;
}

std::string named(const std::vector<const ProcessMappings*>& ps) {
  std::string s;
  for (size_t i = 0; i < ps.size() && i < kNamed; ++i) s += (i ? ", " : "") + ps[i]->who;
  if (ps.size() > kNamed) s += fmt::format(" and {} more", ps.size() - kNamed);
  return s;
}

std::string joined(const std::set<std::string>& files) {
  std::string s;
  for (const std::string& f : files) s += (s.empty() ? "" : ", ") + f + " (deleted)";
  return s;
}

}  // namespace

void check_libraries_replaced(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda) return;
  const std::vector<const ProcessMappings*> ps = on_deleted_libraries(*s.cuda);
  if (ps.empty()) return;
  Finding f = node_finding("driver.libraries_replaced");
  if (ps.size() == 1) {
    f.subject.kind = "process";
    f.subject.pid = ps.front()->pid;
  }
  f.title = fmt::format("The driver's libraries were replaced on disk under {} running {}: {}",
                        ps.size(), plural(ps.size(), "process", "processes"), named(ps));
  f.evidence = "they map " + joined(deleted_files(ps));
  const ResolvedLibrary* now = new_job_libcuda(*s.cuda);
  const std::optional<std::string>& module = s.kernel_module_version;
  if (now) {
    f.evidence += "; a new job loads " + *now->file +
                  (now->version ? " (release " + *now->version + ")" : "");
  }
  if (module) f.evidence += "; kernel module " + *module;
  const bool new_fails = now && now->version && module && *now->version != *module;
  if (new_fails) {
    f.title += fmt::format("; a new job would load {} and fail (cuInit 803)", *now->file);
    f.action = fmt::format(
        "The user space on disk ({}) is not the running module's ({}): these processes keep "
        "working on the old files until they exit, but a new job, NVML, or any of them "
        "restarted in place fails. Let their work finish or drain them, then reboot to load "
        "the installed module; do not restart them before the reboot.",
        *now->version, *module);
    f.commands = {"cat /proc/driver/nvidia/version", "ls -l " + shell_word(*now->file),
                  "sudo reboot"};
  } else {
    f.severity = Severity::kInfo;  // the same release: nothing fails
    f.action =
        "They keep running on the old files; restart them when convenient so they map the "
        "libraries on disk now (same release as the module, nothing fails meanwhile).";
    f.commands = {
        "sudo grep -l -E '(libcuda|libnvidia-ml|libnvidia-ptxjitcompiler)[^ ]* \\(deleted\\)' "
        "/proc/[0-9]*/maps"};
  }
  out.push_back(f);
}

}  // namespace gt
