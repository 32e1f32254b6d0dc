#include "sources/sysfs/machine_kind.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

namespace gt {
namespace {

/// Substrings of DMI sys_vendor / product_name set by hypervisors and cloud
/// VMs (as systemd-detect-virt's DMI table has them).
constexpr std::array<std::string_view, 16> kVmDmi = {"QEMU",
                                                     "KVM",
                                                     "VMware",
                                                     "VirtualBox",
                                                     "innotek GmbH",
                                                     "Xen",
                                                     "Bochs",
                                                     "BHYVE",
                                                     "Parallels",
                                                     "OpenStack",
                                                     "Nutanix AHV",
                                                     "Virtual Machine",
                                                     "Amazon EC2",
                                                     "Google Compute Engine",
                                                     "Alibaba Cloud ECS",
                                                     "Apple Virtualization"};

bool has_hypervisor_flag(const std::string& cpuinfo, bool& flags_seen) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("flags")) continue;
    flags_seen = true;
    std::istringstream words(
        line.substr(line.find(':') == std::string::npos ? line.size() : line.find(':') + 1));
    for (std::string w; words >> w;)
      if (w == "hypervisor") return true;
    return false;  // every CPU shows the same flags
  }
  return false;
}

}  // namespace

std::optional<MachineKind> read_machine_kind(const FsRoot& root) {
  std::optional<std::string> vendor = root.read_optional_trimmed("/sys/class/dmi/id/sys_vendor");
  std::optional<std::string> product = root.read_optional_trimmed("/sys/class/dmi/id/product_name");
  bool flags_seen = false;
  bool flag = false;
  if (Result<std::string> cpuinfo = root.read("/proc/cpuinfo"))
    flag = has_hypervisor_flag(*cpuinfo, flags_seen);
  std::string dmi = vendor.value_or("") + (vendor && product ? " " : "") + product.value_or("");
  if (!flags_seen && dmi.empty()) return std::nullopt;

  const bool metal = product && product->ends_with(".metal");
  const bool dmi_vm =
      !metal && std::any_of(kVmDmi.begin(), kVmDmi.end(), [&](std::string_view needle) {
        return dmi.find(needle) != std::string::npos;
      });
  MachineKind m;
  m.kind = flag || dmi_vm ? "vm" : "bare-metal";
  if (!dmi.empty()) m.evidence = "DMI: " + dmi;
  if (flags_seen) {
    if (!m.evidence.empty()) m.evidence += "; ";
    m.evidence += flag ? "cpuinfo: hypervisor flag" : "cpuinfo: no hypervisor flag";
  }
  return m;
}

}  // namespace gt
