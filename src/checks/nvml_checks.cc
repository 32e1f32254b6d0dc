// Whether NVML works at all, and whether its user-space library matches the
// kernel module. A mismatch is the classic state after an unattended driver
// upgrade without a reboot: the new libnvidia-ml refuses to talk to the old
// module (NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Failed to initialize NVML:
// Driver/library version mismatch"). The module refuses a client of any
// other version, older or newer, character by character
// (RmPerformVersionCheck in open-gpu-kernel-modules; docs/physics.md R1): an
// NVML that answers is of the module's release.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "checks/checks.h"
#include "checks/cuda_library_checks.h"
#include "checks/pin_advice.h"
#include "checks/registry.h"
#include "util/plural.h"

namespace gt {

Finding node_finding(const char* id) {
  Finding f;
  f.id = id;
  const CheckSpec* spec = find_check(id);
  f.severity = spec ? spec->severity : Severity::kWarning;
  f.subject.kind = "node";
  return f;
}

Finding path_finding(const char* id, const std::string& path) {
  Finding f = node_finding(id);
  f.subject.kind = "path";
  f.subject.path = path;
  return f;
}

namespace {

/// The module names in unload order: those loaded, else the usual set.
std::vector<std::string> unload_names(const NodeSnapshot& s) {
  std::vector<std::string> names;
  for (const KernelModule& m : s.nvidia_modules) names.push_back(m.name);
  if (names.empty())
    names = {"nvidia_peermem", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"};
  return names;
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string unload_order_text(const NodeSnapshot& s) { return joined(unload_names(s), ", "); }

const KernelModule* module_named(const NodeSnapshot& s, const std::string& name) {
  for (const KernelModule& m : s.nvidia_modules)
    if (m.name == name) return &m;
  return nullptr;
}

/// The GPU processes NVML listed; with NVML down, the processes whose maps
/// name a driver library (the readiness stage's scan).
std::vector<std::string> gpu_process_pids(const NodeSnapshot& s) {
  std::vector<std::string> pids;
  auto add = [&](uint32_t pid) {
    std::string p = std::to_string(pid);
    if (std::find(pids.begin(), pids.end(), p) == pids.end()) pids.push_back(p);
  };
  for (const GpuState& g : s.gpus)
    for (const GpuProcess& p : g.processes.value_or(std::vector<GpuProcess>{})) add(p.pid);
  if (s.cuda)
    for (const ProcessMappings& m : s.cuda->mapped) add(m.pid);
  return pids;
}

/// The running processes on deleted driver libraries (an upgrade without a
/// reboot), named: "pid 3187 (python3) and 7 more"; empty when none.
std::string on_old_libraries(const NodeSnapshot& s) {
  if (!s.cuda) return "";
  const std::vector<const ProcessMappings*> old = on_deleted_libraries(*s.cuda);
  if (old.empty()) return "";
  return old.front()->who +
         (old.size() > 1 ? " and " + std::to_string(old.size() - 1) + " more processes" : "");
}

/// What holds the running module, from the snapshot: daemons, modules
/// stacked on it, a display server on nvidia_drm, GPU processes.
std::string holders_text(const NodeSnapshot& s) {
  std::vector<std::string> parts;
  for (const NvidiaService& d : s.nvidia_services)
    parts.push_back(fmt::format("{} (PID {}{})", d.what, d.pid, d.unit ? ", " + *d.unit : ""));
  for (const KernelModule& m : s.nvidia_modules)
    if (m.name != "nvidia" && m.name != "nvidia_uvm" && m.name != "nvidia_modeset" &&
        m.name != "nvidia_drm")
      parts.push_back("module " + m.name);
  if (const KernelModule* drm = module_named(s, "nvidia_drm"); drm && drm->refcnt.value_or(0) > 0)
    parts.push_back(fmt::format("nvidia_drm in use {} {} (a display server or console)",
                                *drm->refcnt, plural(*drm->refcnt, "time", "times")));
  if (std::vector<std::string> pids = gpu_process_pids(s); !pids.empty())
    parts.push_back("GPU processes " + joined(pids, ", "));
  if (const KernelModule* nv = module_named(s, "nvidia"); nv && nv->refcnt)
    parts.push_back(fmt::format("nvidia's reference count is {}", *nv->refcnt));
  if (parts.empty())
    return s.nvidia_modules.empty() ? "what holds the modules is unknown (/sys/module not read)"
                                    : "nothing known holds the modules";
  return "held by: " + joined(parts, "; ");
}

/// Reboot first (the simple path), then the reload without one: stop the
/// daemons, leave the graphical target if nvidia_drm is in use, check no
/// process keeps /dev/nvidia* open, unload in order, load, restart daemons.
std::vector<std::string> reload_commands(const NodeSnapshot& s) {
  std::vector<std::string> c = {"cat /proc/driver/nvidia/version",
                                "sudo reboot   # the simple path; or, without a reboot:"};
  std::vector<std::string> units;
  for (const NvidiaService& d : s.nvidia_services) {
    std::string unit =
        d.unit.value_or(d.what == "DCGM"             ? "nvidia-dcgm.service"
                        : d.what == "Fabric Manager" ? "nvidia-fabricmanager.service"
                                                     : "nvidia-persistenced.service");
    if (std::find(units.begin(), units.end(), unit) == units.end()) units.push_back(unit);
  }
  if (!units.empty()) c.push_back("sudo systemctl stop " + joined(units, " "));
  if (const KernelModule* drm = module_named(s, "nvidia_drm"); drm && drm->refcnt.value_or(0) > 0)
    c.push_back("sudo systemctl isolate multi-user.target");
  c.push_back("sudo fuser -v /dev/nvidia*   # stop every process it lists");
  std::vector<std::string> names = unload_names(s);
  c.push_back("sudo rmmod " + joined(names, " "));
  std::reverse(names.begin(), names.end());
  c.push_back("sudo modprobe -a " + joined(names, " "));
  if (!units.empty()) c.push_back("sudo systemctl start " + joined(units, " "));
  return c;
}

}  // namespace

/// Pins the driver packages with the distribution's own tool (os-release);
/// without a known one, the step says how in words.
void add_pin_advice(const NodeSnapshot& s, Finding& f) {
  OsRelease os;
  os.id = s.os_id;
  os.id_like = s.os_id_like;
  if (std::optional<std::string> c = pin_driver_command(package_tool(os)))
    f.commands.push_back(*c + "   # on the host");
  else
    f.action += std::string(" To pin: ") + kGenericPinAdvice + ".";
}

/// "590.48.01" > "565.57.01", numerically part by part.
bool newer(const std::string& a, const std::string& b) {
  std::vector<long> pa, pb;
  for (auto [str, out] : {std::pair{&a, &pa}, std::pair{&b, &pb}}) {
    size_t i = 0;
    while (i < str->size()) {
      size_t dot = str->find('.', i);
      if (dot == std::string::npos) dot = str->size();
      out->push_back(std::strtol(str->substr(i, dot - i).c_str(), nullptr, 10));
      i = dot + 1;
    }
  }
  return pa > pb;
}

namespace {

Finding init_failure(const NodeSnapshot& s) {
  const NvmlStatus& n = s.nvml;
  const std::optional<NvmlInitError> init = n.init_error;
  const std::string module = s.kernel_module_version.value_or("unknown");
  const std::string library = n.library_version.value_or("unknown");
  Finding f = node_finding("nvml.init_failed");
  f.title = n.error_message.value_or("NVML is not usable");
  if (!n.loaded && init == NvmlInitError::kLibraryNotFound) {
    f = node_finding("nvml.library_missing");
    f.title = n.error_message.value_or("no NVIDIA driver");
    f.evidence =
        n.load_error.value_or("library " + n.library_path.value_or("?") + " not loadable") +
        "; kernel module " + module + "; " +
        count_of(s.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") + " on the PCI bus";
    f.action =
        "Install the NVIDIA driver that matches this kernel (or mount the driver "
        "libraries into the container with the NVIDIA container toolkit).";
    f.commands = {"lsmod | grep nvidia", "ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so*"};
  } else if (!n.loaded) {
    f = node_finding("nvml.library_unusable");
    f.title = n.error_message.value_or("the NVML library is unusable");
    f.action = "Reinstall the NVIDIA driver's user-space libraries.";
  } else if (init == NvmlInitError::kVersionMismatch) {
    f = node_finding("nvml.version_mismatch");
    f.title = "Driver/library version mismatch: NVML refuses to start";
    f.evidence = "kernel module " + module + ", NVML library " + library + "; " + holders_text(s);
    f.action =
        "Reboot: the simple path, it loads the installed module. Without a reboot, stop what "
        "holds the running module, unload the modules in order (" +
        unload_order_text(s) +
        ") and load the installed one; then pin the driver packages so an unattended upgrade "
        "cannot split them again.";
    f.commands = reload_commands(s);
    add_pin_advice(s, f);
    if (const std::string old = on_old_libraries(s); !old.empty())
      f.action = "First let " + old +
                 " finish or drain them: they still run on the driver's old, deleted libraries "
                 "and fail if restarted before the module matches. " +
                 f.action;
  } else if (init == NvmlInitError::kDriverNotLoaded) {
    f = node_finding("nvml.driver_not_loaded");
    f.title = "The NVIDIA kernel driver is not loaded";
    // A capture (nvidia-smi's text) says nothing of its node's PCI bus: a
    // GPU-less node prints the same words, so modprobe is conditional there.
    const bool capture = !pci_bus_read(s.source);
    f.evidence = capture ? "nvidia-smi could not communicate with the driver; the node's PCI bus "
                           "was not read (a capture)"
                         : "NVML library " + library + " installed; " +
                               count_of(s.pci_devices.size(), "NVIDIA GPU", "NVIDIA GPUs") +
                               " on the PCI bus";
    f.action =
        std::string(capture ? "If the node has an NVIDIA GPU on its PCI bus (lspci -d 10de:), "
                              "load the driver"
                            : "Load the driver") +
        " and read the kernel log if it fails (a kernel update without a rebuilt DKMS module "
        "is the usual cause).";
    f.commands = {"sudo modprobe nvidia", "sudo dmesg | grep -i -E 'nvidia|nvrm' | tail -20",
                  "dkms status"};
    if (capture) f.commands.insert(f.commands.begin(), "lspci -d 10de: -nn");
  } else if (init == NvmlInitError::kNoPermission) {
    f = node_finding("nvml.no_permission");
    f.title = "No permission to open the NVIDIA devices";
    f.action = "Run as root, or as a member of the group that owns /dev/nvidia*.";
    f.commands = {"ls -l /dev/nvidia*"};
  } else if (init == NvmlInitError::kTimeout) {
    f = node_finding("nvml.unresponsive");
    f.title = n.error_message.value_or("NVML did not answer");
    f.action = "The driver is wedged: read the kernel log for Xid errors, then reboot the node.";
    f.commands = {"sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40", "sudo reboot"};
  } else {
    f.evidence = init ? nvml_init_error_word(*init, n.init_return_name) : "";
    f.action = "Read the kernel log for NVIDIA errors; reboot if it persists.";
    f.commands = {"sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40"};
  }
  return f;
}

}  // namespace

void check_nvml(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.nvml.initialized) {
    // No NVIDIA GPU and no driver: nothing to judge, not a failure
    // (--expect-gpus makes it gpu.count_mismatch).
    if (nothing_to_judge(s)) return;
    out.push_back(init_failure(s));
    return;
  }
  const std::optional<std::string>& lib = s.nvml.library_version;
  const std::optional<std::string>& mod = s.kernel_module_version;
  // NVML answered, so the module accepted its version string: the library
  // is the module's release, whatever its file is named (docs/physics.md
  // R1). Two readings that cannot both be true are the finding themselves.
  const std::optional<std::string>& drv = s.driver_version;
  const bool file_differs = lib && mod && *lib != *mod;
  if (file_differs || (drv && mod && *drv != *mod)) {
    Finding f = node_finding("driver.version_contradiction");
    f.title = file_differs ? "NVML answered, so its library is release " + *mod +
                                 " (the kernel module's), yet its file reads " + *lib
                           : "NVML reports driver " + *drv +
                                 ", yet /sys/module/nvidia/version "
                                 "reads " +
                                 *mod + ": one of the two is not the running module";
    // No library read (a fleet host's nvidia-smi, a capture): its part is
    // left out, never read through the empty optional.
    f.evidence = (lib ? "library file " + s.nvml.library_file.value_or("?") + " (release " + *lib +
                            " from its name); "
                      : std::string()) +
                 "/sys/module/nvidia/version " + *mod + "; NVML reports driver " +
                 s.driver_version.value_or("?") +
                 "; the module refuses a client of any other version (RmPerformVersionCheck: "
                 "'NVRM: API mismatch')";
    f.action =
        "Trust the module's release: NVML works and nothing here fails because of it. The "
        "library's file name does not say its release (a renamed or copied file, or a link "
        "to another file than the one NVML loaded): find where it came from before relying "
        "on it elsewhere.";
    f.commands = {
        "ls -l " + s.nvml.library_file.value_or("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
        "cat /proc/driver/nvidia/version"};
    out.push_back(f);
  }
}

}  // namespace gt
