// driver.nvidia_smi_other_release: the nvidia-smi a shell runs first is
// another release than the driver. Its header then reads
// "NVIDIA-SMI 565.57.01  Driver Version: 590.48.01  CUDA Version: 13.1":
// the first is the binary's own build, the second NVML's report of the
// running module, the third the libcuda the loader finds (docs/physics.md
// R4). Nothing is wrong with the driver; the two versions need one line.
#include <fmt/format.h>

#include "checks/checks.h"

namespace gt {
namespace {

const NvidiaSmiBinary* of_release(const std::vector<NvidiaSmiBinary>& bins,
                                  const std::string& release) {
  for (const NvidiaSmiBinary& b : bins)
    if (b.release == release) return &b;
  return nullptr;
}

}  // namespace

void check_nvidia_smi(const NodeSnapshot& s, std::vector<Finding>& out) {
  // Only where NVML answered: then the driver's release is known for sure
  // (an answering NVML is the module's release), and nvidia-smi runs.
  if (!s.nvml.initialized || !s.nvidia_smi || s.nvidia_smi->empty()) return;
  const std::optional<std::string> driver =
      s.kernel_module_version ? s.kernel_module_version : s.driver_version;
  const NvidiaSmiBinary& first = s.nvidia_smi->front();
  if (!driver || !first.release || *first.release == *driver) return;
  Finding f = path_finding("driver.nvidia_smi_other_release", first.path);
  f.title = fmt::format(
      "{} (first on PATH) is nvidia-smi {}, the driver {}: its header shows both, NVIDIA-SMI "
      "{} being the tool's own build",
      first.path, *first.release, *driver, *first.release);
  f.evidence = fmt::format(
      "{} carries release {}; NVML (which it asks) reports driver {}{}. In nvidia-smi's header "
      "NVIDIA-SMI is the binary's build, Driver Version the running module's, CUDA Version the "
      "libcuda the loader finds: the figures it prints are the driver's",
      first.path, *first.release, *driver,
      s.cuda_driver_version ? ", CUDA " + *s.cuda_driver_version : "");
  const NvidiaSmiBinary* own = of_release(*s.nvidia_smi, *driver);
  if (own) {
    f.evidence += fmt::format("; the driver's own nvidia-smi is {}", own->path);
    f.action =
        "Nothing is wrong with the driver. Run the driver's own nvidia-smi by its path, "
        "or take the other copy off PATH (an image's own or an old package's).";
    f.commands = {own->path};
  } else {
    f.action =
        "Nothing is wrong with the driver. The driver's own nvidia-smi is not on PATH: "
        "take the other copy off PATH, or use it knowing its header's first version is "
        "its own.";
    f.commands = {"ls -l " + first.path};
  }
  out.push_back(f);
}

}  // namespace gt
