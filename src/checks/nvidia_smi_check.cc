// driver.nvidia_smi_other_release: the nvidia-smi a shell runs first is
// another release than the driver. Its header then reads
// "NVIDIA-SMI 565.57.01  Driver Version: 590.48.01  CUDA Version: 13.1":
// the first is the binary's own build, the second NVML's report of the
// running module, the third the libcuda the loader finds (docs/physics.md
// R4). Nothing is wrong with the driver; the two versions need one line.
#include <fmt/format.h>

#include <algorithm>

#include "checks/checks.h"
#include "util/shell_word.h"

namespace gt {
namespace {

const NvidiaSmiBinary* of_release(const std::vector<const NvidiaSmiBinary*>& bins,
                                  const std::string& release) {
  for (const NvidiaSmiBinary* b : bins)
    if (b->release == release) return b;
  return nullptr;
}

/// One PATH's nvidia-smi binaries (the node's, or one container's), the
/// first a shell runs first.
Finding other_release(const std::vector<const NvidiaSmiBinary*>& bins, const std::string& driver,
                      const std::optional<std::string>& cuda) {
  const NvidiaSmiBinary& first = *bins.front();
  const std::string where = first.container ? "In container " + *first.container + ", " : "";
  // Paths and the container's name are outside words: each one quoted word.
  const std::string exec =
      first.container ? "docker exec " + shell_word(*first.container) + " " : "";
  Finding f = path_finding("driver.nvidia_smi_other_release", first.path);
  f.title = fmt::format(
      "{}{} (first on {}PATH) is nvidia-smi {}, the driver {}: its header shows both, NVIDIA-SMI "
      "{} being the tool's own build",
      where, first.path, first.container ? "its " : "", *first.release, driver, *first.release);
  f.evidence = fmt::format(
      "{} carries release {}; NVML (which it asks) reports driver {}{}. In nvidia-smi's header "
      "NVIDIA-SMI is the binary's build, Driver Version the running module's, CUDA Version the "
      "libcuda the loader finds: the figures it prints are the driver's",
      first.path, *first.release, driver, cuda ? ", CUDA " + *cuda : "");
  if (const NvidiaSmiBinary* own = of_release(bins, driver)) {
    f.evidence += fmt::format("; the driver's own nvidia-smi is {}{}", own->path,
                              first.container ? " there (the container toolkit mounts it)" : "");
    f.action =
        "Nothing is wrong with the driver. Run the driver's own nvidia-smi by its path, "
        "or take the other copy off PATH (an image's own or an old package's).";
    f.commands = {exec + shell_word(own->path)};
  } else {
    f.action =
        "Nothing is wrong with the driver. The driver's own nvidia-smi is not on PATH: "
        "take the other copy off PATH, or use it knowing its header's first version is "
        "its own.";
    f.commands = {exec + "ls -l " + shell_word(first.path)};
  }
  return f;
}

}  // namespace

void check_nvidia_smi(const NodeSnapshot& s, std::vector<Finding>& out) {
  // Only where NVML answered: then the driver's release is known for sure
  // (an answering NVML is the module's release), and nvidia-smi runs.
  if (!s.nvml.initialized || !s.nvidia_smi || s.nvidia_smi->empty()) return;
  const std::optional<std::string> driver =
      s.kernel_module_version ? s.kernel_module_version : s.driver_version;
  if (!driver) return;
  // The node's PATH first, then each container's, in the order read.
  std::vector<std::optional<std::string>> paths;
  for (const NvidiaSmiBinary& b : *s.nvidia_smi)
    if (std::find(paths.begin(), paths.end(), b.container) == paths.end())
      paths.push_back(b.container);
  for (const std::optional<std::string>& where : paths) {
    std::vector<const NvidiaSmiBinary*> bins;
    for (const NvidiaSmiBinary& b : *s.nvidia_smi)
      if (b.container == where) bins.push_back(&b);
    if (bins.front()->release && *bins.front()->release != *driver)
      out.push_back(other_release(bins, *driver, s.cuda_driver_version));
  }
}

}  // namespace gt
