// Whether NVML works at all, and whether its user-space library matches the
// kernel module. A mismatch is the classic state after an unattended driver
// upgrade without a reboot: the new libnvidia-ml refuses to talk to the old
// module (NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Failed to initialize NVML:
// Driver/library version mismatch"). A library from an older install left
// under a newer module (the after-crash container) may still initialise, but
// tools and CUDA in that environment then run against the wrong user space.
#include "checks/checks.h"
#include "checks/registry.h"

namespace gt {

Finding node_finding(const char* id) {
  Finding f;
  f.id = id;
  const CheckSpec* spec = find_check(id);
  f.severity = spec ? spec->severity : Severity::kWarning;
  f.subject.kind = "node";
  return f;
}

namespace {

Finding init_failure(const NodeSnapshot& s) {
  const NvmlStatus& n = s.nvml;
  const std::string init = n.init_error.value_or("");
  const std::string module = s.kernel_module_version.value_or("unknown");
  const std::string library = n.library_version.value_or("unknown");
  Finding f = node_finding("nvml.init_failed");
  f.title = n.error_message.value_or("NVML is not usable");
  if (!n.loaded && init == "LIBRARY_NOT_FOUND") {
    f = node_finding("nvml.library_missing");
    f.title = n.error_message.value_or("no NVIDIA driver");
    f.evidence =
        n.load_error.value_or("library " + n.library_path.value_or("?") + " not loadable") +
        "; kernel module " + module + "; " + std::to_string(s.pci_devices.size()) +
        " NVIDIA GPU(s) on the PCI bus";
    f.action =
        "Install the NVIDIA driver that matches this kernel (or mount the driver "
        "libraries into the container with the NVIDIA container toolkit).";
    f.commands = {"lsmod | grep nvidia", "ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so*"};
  } else if (!n.loaded) {
    f = node_finding("nvml.library_unusable");
    f.title = n.error_message.value_or("the NVML library is unusable");
    f.action = "Reinstall the NVIDIA driver's user-space libraries.";
  } else if (init == "NVML_ERROR_LIB_RM_VERSION_MISMATCH") {
    f = node_finding("nvml.version_mismatch");
    f.title = "Driver/library version mismatch: NVML refuses to start";
    f.evidence = "kernel module " + module + ", NVML library " + library;
    f.action =
        "Reboot, or unload and reload the nvidia modules so the running module matches "
        "the installed library; then pin the driver packages so an unattended upgrade "
        "cannot split them again.";
    f.commands = {"cat /proc/driver/nvidia/version",
                  "sudo systemctl isolate multi-user.target && sudo rmmod nvidia_uvm "
                  "nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia   # or: sudo reboot",
                  "sudo apt-mark hold 'nvidia-*' 'libnvidia-*'"};
  } else if (init == "NVML_ERROR_DRIVER_NOT_LOADED") {
    f = node_finding("nvml.driver_not_loaded");
    f.title = "The NVIDIA kernel driver is not loaded";
    f.evidence = "NVML library " + library + " installed; " + std::to_string(s.pci_devices.size()) +
                 " NVIDIA GPU(s) on the PCI bus";
    f.action =
        "Load the driver and read the kernel log if it fails (a kernel update without "
        "a rebuilt DKMS module is the usual cause).";
    f.commands = {"sudo modprobe nvidia", "sudo dmesg | grep -i -E 'nvidia|nvrm' | tail -20",
                  "dkms status"};
  } else if (init == "NVML_ERROR_NO_PERMISSION") {
    f = node_finding("nvml.no_permission");
    f.title = "No permission to open the NVIDIA devices";
    f.action = "Run as root, or as a member of the group that owns /dev/nvidia*.";
    f.commands = {"ls -l /dev/nvidia*"};
  } else if (init == "TIMEOUT") {
    f = node_finding("nvml.unresponsive");
    f.title = n.error_message.value_or("NVML did not answer");
    f.action = "The driver is wedged: read the kernel log for Xid errors, then reboot the node.";
    f.commands = {"sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40", "sudo reboot"};
  } else {
    f.evidence = init;
    f.action = "Read the kernel log for NVIDIA errors; reboot if it persists.";
    f.commands = {"sudo dmesg -T | grep -E 'NVRM|Xid' | tail -40"};
  }
  return f;
}

}  // namespace

void check_nvml(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.nvml.initialized) {
    // No NVIDIA GPU and no driver: nothing to judge, not a failure.
    if (!s.nvml.loaded && s.pci_devices.empty()) return;
    out.push_back(init_failure(s));
    return;
  }
  const std::optional<std::string>& lib = s.nvml.library_version;
  const std::optional<std::string>& mod = s.kernel_module_version;
  if (lib && mod && *lib != *mod) {
    Finding f = node_finding("driver.version_split");
    f.title = "NVML library " + *lib + " differs from kernel module " + *mod;
    f.evidence = "library file " + s.nvml.library_file.value_or("?") + "; /sys/module/nvidia/" +
                 "version " + *mod + "; NVML reports driver " + s.driver_version.value_or("?");
    f.action =
        "NVML still works, but tools and CUDA here use user-space libraries from another "
        "driver release. Install the user-space package matching the module (in a "
        "container: recreate it so the NVIDIA container toolkit mounts the host's "
        "libraries), and pin the driver packages.";
    f.commands = {
        "ls -l " + s.nvml.library_file.value_or("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
        "cat /proc/driver/nvidia/version"};
    out.push_back(f);
  }
}

}  // namespace gt
