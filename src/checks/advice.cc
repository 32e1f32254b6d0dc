// Advice fits who runs it: as root, commands are written without "sudo"
// (a root shell has no use for it, and a container often has no sudo).
#include <algorithm>

#include "checks/checks.h"
#include "holders/stop.h"

namespace gt {

void drop_sudo(std::vector<Finding>& findings) {
  for (Finding& f : findings)
    for (std::string& c : f.commands) c = without_sudo(c);
}

bool no_nvidia_gpu(const NodeSnapshot& s) {
  // Whatever libraries are installed: NVIDIA's own libnvidia-ml loads on a
  // CPU node and answers DRIVER_NOT_LOADED, and modprobe cannot help there.
  // Any other init error (no permission, a version mismatch, a timeout)
  // means a driver answered: not this case.
  const std::optional<NvmlInitError>& init = s.nvml.init_error;
  const bool no_driver_answered = !s.nvml.loaded || init == NvmlInitError::kDriverNotLoaded ||
                                  init == NvmlInitError::kGpuNotFound;
  return pci_bus_read(s.source) && !s.nvml.initialized && no_driver_answered &&
         s.pci_devices.empty() && !s.kernel_module_version;
}

bool nothing_to_judge(const NodeSnapshot& s) {
  return no_nvidia_gpu(s) || (s.source != Origin::kNvml && !s.nvml.loaded);
}

}  // namespace gt
