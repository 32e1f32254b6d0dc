// Whether the driver libraries a job would load match the kernel module.
#include "checks/cuda_library_checks.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "checks/catalogue.h"
#include "checks/checks.h"
#include "model/forward_compat.h"
#include "util/shell_word.h"

namespace gt {
namespace {

const ResolvedLibrary* libcuda_of(const LoaderContext& c, const char* soname = "libcuda.so.1") {
  for (const ResolvedLibrary& l : c.libraries) {
    if (l.soname == soname) return &l;
  }
  return nullptr;
}

/// The context's libcuda when its release is known and differs from `module`.
const ResolvedLibrary* mismatched_libcuda(const LoaderContext& c, const std::string& module) {
  const ResolvedLibrary* l = libcuda_of(c);
  if (!l || !l->file || !l->version || *l->version == module) return nullptr;
  return l;
}

/// A libcuda no file sign names (sources/cuda/compat_library.h), known as a
/// forward-compatibility library by its release: newer than the module
/// while the same context's libnvidia-ml.so.1 is the module's own. A driver
/// install, or an upgrade not rebooted yet, moves both; NVIDIA's cuda-compat
/// package carries libcuda without NVML, so an image's copy of it splits
/// them (docs/physics.md R2a).
std::optional<std::string> compat_by_release(const LoaderContext& c, const ResolvedLibrary& l,
                                             const std::string& module) {
  if (l.compat || !newer(*l.version, module)) return std::nullopt;
  const ResolvedLibrary* ml = libcuda_of(c, "libnvidia-ml.so.1");
  if (!ml || !ml->file || ml->version != module) return std::nullopt;
  return "its release " + *l.version + " (from its " + l.version_from.value_or("?") +
         ") is newer than the kernel module " + module + " while " + ml->soname + " -> " +
         *ml->file +
         " is the module's release: the split a cuda-compat package makes (it carries "
         "libcuda, not NVML)";
}

/// The library as judged: a compat one by its release is marked so.
ResolvedLibrary as_judged(const LoaderContext& c, const ResolvedLibrary& l,
                          const std::string& module) {
  ResolvedLibrary seen = l;
  if (std::optional<std::string> why = compat_by_release(c, l, module)) {
    seen.compat = true;
    seen.compat_from = std::move(why);
  }
  return seen;
}

std::string library_words(const ResolvedLibrary& l) {
  std::string s = l.soname + " -> " + *l.file;
  if (l.found_at && *l.found_at != *l.file) s = l.soname + " at " + *l.found_at + " -> " + *l.file;
  s += " (found by " + l.found_via.value_or("?") +
       (l.conf_file ? ", its directory from " + *l.conf_file : std::string()) + "; release " +
       *l.version + " from its " + l.version_from.value_or("?") +
       (l.compat_from ? "; a forward-compatibility library: " + *l.compat_from : std::string()) +
       ")";
  return s;
}

/// The other driver libraries of the context whose release is not the
/// module's: "too" only when it is libcuda's release as well.
std::string other_splits(const LoaderContext& c, const ResolvedLibrary& cuda,
                         const std::string& module) {
  std::string s;
  for (const ResolvedLibrary& l : c.libraries) {
    if (l.soname == "libcuda.so.1" || !l.file || !l.version || *l.version == module) continue;
    s += "; " + l.soname + " -> " + *l.file + " is " + *l.version +
         (l.version == cuda.version ? " too" : "");
  }
  return s;
}

std::string library_dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

/// A forward-compatibility libcuda where the driver's should be (a bind
/// mount or a copy of an image's cuda-compat file): what to remove. Newer
/// than the module it is the 804 case on a GPU without forward
/// compatibility; not newer, it cannot initialise at all (803, R2).
void compat_fix(const LoaderContext& c, const ResolvedLibrary& l, const std::string& module,
                Finding& f) {
  const std::string why =
      newer(*l.version, module)
          ? "is newer than the kernel module " + module +
                ": the forward-compatible path, which NVIDIA supports only on data-center "
                "GPUs over production and long-term support driver branches"
          : "is not newer than the kernel module " + module +
                ": forward compatibility runs a newer CUDA on an older driver only, so it "
                "cannot initialise here";
  f.action = "The forward-compatibility libcuda " + *l.file + " (release " + *l.version + ") " +
             why + ". Remove it from " + c.who +
             "'s library path: use an image without /usr/local/cuda*/compat (or delete that "
             "directory in the image, and any copy of its libcuda in the library directory), "
             "or a container toolkit that mounts the compat library "
             "only where it works, and recreate the container, so it loads libcuda.so." +
             module + ", the driver's own.";
  f.commands = {"ls -l " + shell_word(*l.found_at), "grep -F libcuda /proc/self/mountinfo",
                "cat /proc/driver/nvidia/version"};
}

/// The fix by where the wrong library came from.
void mismatch_fix(const LoaderContext& c, const ResolvedLibrary& l, const std::string& module,
                  Finding& f) {
  if (l.found_via == "LD_LIBRARY_PATH") {
    f.action = "Its LD_LIBRARY_PATH puts " + library_dir_of(*l.found_at) +
               " before the host's driver "
               "libraries: remove that directory from the environment of " +
               c.who + " (its unit, container or launcher) and start it again.";
    f.commands = {"ls -l " + shell_word(*l.found_at), "cat /proc/driver/nvidia/version"};
    if (c.pid)
      f.commands.push_back("tr '\\0' '\\n' < /proc/" + std::to_string(*c.pid) +
                           "/environ | grep LD_LIBRARY_PATH");
  } else if (l.conf_file) {
    const std::string& conf = *l.conf_file;
    const std::string dir = library_dir_of(*l.found_at);
    const bool own_file = conf != "/etc/ld.so.conf";
    f.action = conf + " puts " + dir + " (libcuda " + *l.version +
               ") before the driver's own libraries: remove " +
               (own_file ? "that file (or the package that installed it)" : "that line") +
               " and rebuild the loader cache, so the module's release " + module + " is loaded.";
    f.commands = {"cat " + shell_word(conf)};
    if (own_file) f.commands.push_back("sudo rm " + shell_word(conf));
    f.commands.insert(f.commands.end(), {"sudo ldconfig", "ldconfig -p | grep libcuda.so.1"});
  } else if (l.compat) {
    compat_fix(c, l, module, f);
  } else if (newer(*l.version, module)) {
    f.action = "The installed driver libraries (" + *l.version +
               ") are newer than the running "
               "module (" +
               module +
               "): an upgrade without a reboot. Reboot to load the "
               "installed module (the simple path), then check the module's version.";
    f.commands = {"ls -l " + shell_word(*l.found_at), "cat /proc/driver/nvidia/version",
                  "sudo reboot"};
  } else {
    f.action = "The user-space driver libraries here are release " + *l.version +
               ", the kernel module " + module +
               ". In a container: the image carries its own "
               "driver libraries, or they were mounted from the host before its driver changed; "
               "recreate the container with the NVIDIA container toolkit (on the host, regenerate "
               "the CDI spec after each driver change). On the host: install the user-space "
               "packages of the module's release " +
               module + ", and only then hold the driver packages (holding them now would keep " +
               *l.version + ").";
    f.commands = {"ls -l " + shell_word(*l.found_at), "cat /proc/driver/nvidia/version",
                  "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml   # on the host, "
                  "then recreate the container"};
  }
}

/// The file a context loads, named so the one line says which:
/// "/usr/lib/x86_64-linux-gnu/libcuda.so.565.57.01" (its name carries the
/// release), else the path and the release read from its contents.
std::string loaded_words(const ResolvedLibrary& l) {
  if (!l.file) return "libcuda " + *l.version;
  if (l.file->ends_with(".so." + *l.version)) return *l.file;
  return *l.file + " (release " + *l.version + ")";
}

/// The running processes that hold GPU memory through a mapped libcuda:
/// proof that the file passed cuInit against this module (physics.md R3).
std::vector<std::pair<const ProcessMappings*, const MappedLibrary*>> proofs(const NodeSnapshot& s) {
  std::vector<std::pair<const ProcessMappings*, const MappedLibrary*>> out;
  for (const ProcessMappings& m : s.cuda->mapped) {
    if (!m.gpu_memory_bytes || *m.gpu_memory_bytes == 0) continue;
    for (const MappedLibrary& l : m.libraries)
      if (l.path.find("/libcuda.so") != std::string::npos) out.push_back({&m, &l});
  }
  return out;
}

std::string mapped_words(const MappedLibrary& l) {
  return l.path + (l.deleted ? " (deleted)" : "");
}

/// "pid 3187 (sglang::scheduler) and 7 more run on F": the proof beside a
/// prediction, grouped by the file they map.
std::string proof_words(const NodeSnapshot& s) {
  std::map<std::string, std::vector<std::string>> by_file;
  for (const auto& [m, l] : proofs(s)) by_file[mapped_words(*l)].push_back(m->who);
  std::string out;
  for (const auto& [file, who] : by_file) {
    out += (out.empty() ? "" : "; ") + who.front() +
           (who.size() > 1 ? " and " + std::to_string(who.size() - 1) + " more" : "") +
           (who.size() > 1 ? " hold" : " holds") + " GPU memory through " + file;
  }
  return out;
}

/// A GPU process holding memory through the very file the prediction says
/// cannot initialise: the prediction is wrong, not the node.
const ProcessMappings* proof_against(const NodeSnapshot& s, const ResolvedLibrary& l) {
  for (const auto& [m, mapped] : proofs(s))
    if (!mapped->deleted && l.file && mapped->path == *l.file) return m;
  return nullptr;
}

Finding contradiction_finding(const LoaderContext& c, const ResolvedLibrary& l,
                              const ProcessMappings& proof, const std::string& module) {
  Finding f = node_finding("cuda.release_contradicted");
  f.title = c.who + "'s libcuda " + *l.file + " reads as release " + *l.version + ", yet " +
            proof.who + " holds GPU memory through it under kernel module " + module;
  f.evidence = library_words(l) + "; " + proof.who + " maps " + *l.file +
               "; a libcuda of another release than the module cannot initialise, so the "
               "release read from its " +
               l.version_from.value_or("?") + " is not the file's";
  f.action =
      "The running process is the proof: CUDA works with this file under this module. "
      "Nothing here predicts a failure; find out why its " +
      l.version_from.value_or("name") +
      " says another release (a renamed or copied library) before trusting it elsewhere.";
  f.commands = {"ls -l " + shell_word(*l.found_at), "cat /proc/driver/nvidia/version"};
  return f;
}

Finding mismatch_finding(const NodeSnapshot& s, const LoaderContext& c, const ResolvedLibrary& l,
                         const std::string& module) {
  Finding f = node_finding("cuda.driver_mismatch");
  if (c.pid) {
    f.subject.kind = "process";
    f.subject.pid = c.pid;
  }
  // A running process already holds its CUDA context: what fails is its
  // next start with the same environment.
  f.title = "CUDA will fail to initialise (cuInit 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) in " +
            c.who + (c.pid ? " when it starts again" : "") + ": " + loaded_words(l) +
            " under kernel module " + module;
  f.evidence = c.who + " loads " + library_words(l) + "; it should be libcuda.so." + module +
               " (the module's release); /sys/module/nvidia/version " + module +
               other_splits(c, l, module);
  if (!c.pid && s.nvml.library_version && *s.nvml.library_version != module) {
    f.evidence +=
        "; NVML's library " + s.nvml.library_file.value_or("?") + " is " + *s.nvml.library_version;
  }
  // The proof beside the prediction: what the running GPU processes use.
  if (const std::string proof = proof_words(s); !proof.empty())
    f.evidence += "; running now: " + proof + " (it initialised under this module; " + c.who +
                  " loads " + *l.file + " instead)";
  mismatch_fix(c, l, module, f);
  return f;
}

/// Whether every GPU supports forward compatibility: false when one does
/// not, null when one cannot be told and none is known not to.
std::optional<bool> all_support_forward_compat(const NodeSnapshot& s, std::string& which) {
  std::optional<bool> all = true;
  for (const GpuState& g : s.gpus) {
    const std::optional<bool> ok = g.name ? supports_forward_compat(*g.name) : std::nullopt;
    if (ok == false) {
      which = gpu_label(g) + " " + *g.name;
      return false;
    }
    if (!ok && all) {
      which = gpu_label(g) + " " + g.name.value_or("(name unknown)");
      all = std::nullopt;
    }
  }
  return all;
}

/// "R575" of "575.57.08".
std::string branch_name(const std::string& module) {
  const std::optional<int> branch = driver_branch_of(module);
  return branch ? "R" + std::to_string(*branch) : "the branch of " + module;
}

/// "R575 (a new feature branch)", "R550 (a branch whose designation the
/// sources read do not give)".
std::string branch_words(const std::string& module) {
  const std::optional<int> branch = driver_branch_of(module);
  const std::optional<DriverBranchKind> kind = branch ? driver_branch_kind(*branch) : std::nullopt;
  return branch_name(module) + " (" +
         (kind ? std::string("a ") + driver_branch_kind_name(*kind)
               : std::string("a branch whose designation the sources read do not give")) +
         ")";
}

constexpr const char* kDeviceClassWords =
    "Forward compatibility works only on data-center GPUs (and select NGC Server Ready RTX "
    "boards).";

/// The title, severity and first words of the fix for each outcome.
void forward_compat_words(ForwardCompat outcome, const LoaderContext& c, const ResolvedLibrary& l,
                          const std::string& module, const std::string& which, Finding& f) {
  switch (outcome) {
    case ForwardCompat::kNotOnThisDevice:
      f.title =
          "CUDA will fail to initialise (cuInit 804 CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) "
          "in " +
          c.who + ": forward-compatibility libcuda " + *l.version + " on " + which;
      f.action = kDeviceClassWords;
      return;
    case ForwardCompat::kDeviceUnknown:
      f.severity = Severity::kWarning;
      f.title = "Forward-compatibility libcuda " + *l.version + " in " + c.who +
                " on a GPU not known to support it (CUDA may fail with 804)";
      f.action = kDeviceClassWords;
      return;
    case ForwardCompat::kBranchNotSupported:
      f.title = "Forward-compatibility libcuda " + *l.version + " in " + c.who +
                " over kernel module " + module + ", " + branch_words(module) +
                ": NVIDIA supports forward compatibility only over production and long-term "
                "support branches (CUDA may fail; which error is not documented)";
      f.action =
          "Forward compatibility is supported only over NVIDIA's production and "
          "long-term support driver branches. Move the node's driver to such a branch "
          "new enough for the job, or drop the compat library:";
      return;
    case ForwardCompat::kBranchUnknown:
      f.severity = Severity::kInfo;
      f.title = "Forward-compatibility libcuda " + *l.version + " in " + c.who +
                " over kernel module " + module +
                ": whether NVIDIA supports forward compatibility over this branch is not known "
                "here";
      f.action = "Look up " + branch_name(module) +
                 " in NVIDIA's data-center driver lifecycle (docs.nvidia.com/datacenter/tesla/"
                 "drivers): over a production or long-term support branch this is the "
                 "documented forward-compatible path and nothing needs doing; over a new "
                 "feature branch it is not supported, and then:";
      return;
    case ForwardCompat::kWorks:
    case ForwardCompat::kNotNewer:
      return;
  }
}

/// A compat libcuda newer than the module: NVIDIA's forward-compatibility
/// rules (model/forward_compat.h) decide; only the documented path says
/// nothing.
void judge_forward_compat(const LoaderContext& c, const ResolvedLibrary& l,
                          const std::string& module, ForwardCompat outcome,
                          const std::string& which, std::vector<Finding>& out) {
  const bool branch =
      outcome == ForwardCompat::kBranchNotSupported || outcome == ForwardCompat::kBranchUnknown;
  Finding f = node_finding(branch ? "cuda.compat_branch" : "cuda.compat_unsupported");
  if (c.pid) {
    f.subject.kind = "process";
    f.subject.pid = c.pid;
  }
  f.evidence = c.who + " loads the forward-compatibility " + library_words(l) +
               " over kernel module " + module + "; " +
               (branch ? "the module is " + branch_words(module) : which);
  forward_compat_words(outcome, c, l, module, which, f);
  const std::string words = f.action;
  mismatch_fix(c, l, module, f);
  f.action = words + " " + f.action;
  out.push_back(f);
}

bool same_library_file(const ResolvedLibrary* a, const ResolvedLibrary* b) {
  return a && b && a->file == b->file;
}

void judge_context(const NodeSnapshot& s, const LoaderContext& c, const LoaderContext& job,
                   const std::string& module, std::vector<Finding>& out) {
  const ResolvedLibrary* l = mismatched_libcuda(c, module);
  if (!l) return;
  if (c.pid && same_library_file(l, libcuda_of(job))) return;  // said once, for a new job
  // NVML refuses to start on the same split: nvml.version_mismatch says it.
  if (!c.pid && !s.nvml.initialized && s.nvml.init_error == NvmlInitError::kVersionMismatch &&
      s.nvml.library_version == l->version) {
    return;
  }
  const ResolvedLibrary seen = as_judged(c, *l, module);
  if (seen.compat) {
    std::string which;
    const ForwardCompat outcome = forward_compat_outcome(all_support_forward_compat(s, which),
                                                         newer(*seen.version, module), module);
    if (outcome == ForwardCompat::kWorks) return;  // the path NVIDIA documents
    if (outcome != ForwardCompat::kNotNewer)
      return judge_forward_compat(c, seen, module, outcome, which, out);
  }
  // A prediction the node's own evidence contradicts is never said as fact.
  if (const ProcessMappings* proof = proof_against(s, seen))
    return out.push_back(contradiction_finding(c, seen, *proof, module));
  out.push_back(mismatch_finding(s, c, seen, module));
}

/// What could not be resolved or read, when it leaves the answer unknown.
void libraries_unread(const NodeSnapshot& s, const std::string& module, std::vector<Finding>& out) {
  const CudaReadiness& r = *s.cuda;
  std::string what;
  for (const LoaderContext& c : r.loaders) {
    const ResolvedLibrary* l = libcuda_of(c);
    if (l && l->version) continue;
    what += (what.empty() ? "" : "; ") + c.who + ": ";
    what += !l || !l->file ? "no libcuda.so.1 on the loader's search path"
                           : "release of " + *l->file + " unknown";
    if (l) {
      for (const std::string& n : l->notes) what += " (" + n + ")";
    }
  }
  for (const std::string& n : r.notes) what += (what.empty() ? "" : "; ") + n;
  if (!r.loaders.empty()) {
    for (const std::string& n : r.loaders.front().notes) what += (what.empty() ? "" : "; ") + n;
  }
  if (what.empty()) return;
  Finding f = node_finding("cuda.libraries_unread");
  f.title = "Which libcuda a job loads, or its release, could not be read everywhere";
  f.evidence = what + "; kernel module " + module;
  f.action = "Whether CUDA starts against module " + module +
             " is unknown where this says so: "
             "check the library a job loads by hand.";
  f.commands = {"ldconfig -p | grep -E 'libcuda|libnvidia-ml|ptxjit'",
                "cat /proc/driver/nvidia/version"};
  out.push_back(f);
}

bool gpu_name_has_token(std::string_view name, std::initializer_list<std::string_view> tokens) {
  size_t i = 0;
  while (i < name.size()) {
    const size_t end = std::min(name.find_first_of(" -", i), name.size());
    for (std::string_view t : tokens) {
      if (name.substr(i, end - i) == t) return true;
    }
    i = end + 1;
  }
  return false;
}

}  // namespace

std::optional<bool> supports_forward_compat(const std::string& gpu_name) {
  if (gpu_name_has_token(gpu_name, {"GeForce", "TITAN"})) return false;
  if (gpu_name_has_token(gpu_name, {"RTX", "Quadro"})) {
    if (gpu_name.find("Server Edition") != std::string::npos) return std::nullopt;
    return false;
  }
  if (gpu_name_has_token(gpu_name, {"Tesla", "A100", "A800",  "A30",  "A40",  "A10",   "A16",
                                    "A2",    "H100", "H200",  "H800", "H20",  "GH200", "L40",
                                    "L40S",  "L4",   "L20",   "B100", "B200", "B300",  "GB200",
                                    "GB300", "V100", "V100S", "T4",   "P100", "P40",   "P4"})) {
    return true;
  }
  return std::nullopt;
}

const ResolvedLibrary* new_job_libcuda(const CudaReadiness& r) {
  if (r.loaders.empty()) return nullptr;
  const ResolvedLibrary* l = libcuda_of(r.loaders.front());
  return l && l->file ? l : nullptr;
}

std::vector<const ProcessMappings*> on_deleted_libraries(const CudaReadiness& r) {
  std::vector<const ProcessMappings*> out;
  for (const ProcessMappings& m : r.mapped)
    if (std::any_of(m.libraries.begin(), m.libraries.end(),
                    [](const MappedLibrary& l) { return l.deleted; }))
      out.push_back(&m);
  return out;
}

void check_cuda_libraries(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.cuda || s.cuda->loaders.empty() || !s.kernel_module_version) return;
  const std::string& module = *s.kernel_module_version;
  const LoaderContext& job = s.cuda->loaders.front();
  // The processes of one server share their environment: the first one
  // loading a file has the finding, the others are named in its evidence.
  std::map<std::string, size_t> by_file;  // a process's libcuda -> its finding in `out`
  for (const LoaderContext& c : s.cuda->loaders) {
    const ResolvedLibrary* l = c.pid ? mismatched_libcuda(c, module) : nullptr;
    if (l && l->file) {
      if (auto at = by_file.find(*l->file); at != by_file.end()) {
        out[at->second].evidence += "; so does " + c.who;
        continue;
      }
    }
    const size_t before = out.size();
    judge_context(s, c, job, module, out);
    if (l && l->file && out.size() > before) by_file[*l->file] = before;
  }
  libraries_unread(s, module, out);
}

std::optional<int> predicted_cuinit_error(std::string_view finding_id) {
  switch (finding_event(finding_id)) {
    case FindingEvent::kCuInit803:
      return 803;
    case FindingEvent::kCuInit804:
      return 804;
    default:
      return std::nullopt;
  }
}

}  // namespace gt
