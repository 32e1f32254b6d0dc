#include "checks/pin_advice.h"

#include <sstream>
#include <vector>

namespace gt {
namespace {

std::vector<std::string> words(const std::optional<std::string>& s) {
  std::vector<std::string> out;
  std::istringstream in(s.value_or(""));
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

PackageTool tool_for(const std::string& id) {
  if (id == "debian" || id == "ubuntu") return PackageTool::kApt;
  if (id == "rhel" || id == "fedora" || id == "centos" || id == "rocky" || id == "almalinux" ||
      id == "ol")
    return PackageTool::kDnf;
  if (id == "suse" || id == "sles" || id.starts_with("opensuse")) return PackageTool::kZypper;
  return PackageTool::kUnknown;
}

}  // namespace

PackageTool package_tool(const OsRelease& os) {
  // ID first (Ubuntu's ID_LIKE is "debian": the same tool either way), then
  // each ID_LIKE word in order.
  std::vector<std::string> ids = words(os.id);
  for (const std::string& w : words(os.id_like)) ids.push_back(w);
  for (const std::string& id : ids)
    if (PackageTool t = tool_for(id); t != PackageTool::kUnknown) return t;
  return PackageTool::kUnknown;
}

std::optional<std::string> pin_driver_command(PackageTool tool) {
  // The installed packages named nvidia-*, libnvidia-* (and the kernel
  // module packages), less the container toolkit's.
  switch (tool) {
    case PackageTool::kApt:
      return "dpkg-query -W -f='${db:Status-Abbrev} ${Package}\\n' 'nvidia-*' 'libnvidia-*' | "
             "awk '/^ii/ && !/container/ {print $2}' | sudo xargs apt-mark hold";
    case PackageTool::kDnf:
      return "rpm -qa --qf '%{NAME}\\n' 'nvidia-*' 'libnvidia-*' 'kmod-nvidia*' | "
             "grep -v container | sudo xargs dnf versionlock add   # dnf install "
             "python3-dnf-plugin-versionlock first";
    case PackageTool::kZypper:
      return "rpm -qa --qf '%{NAME}\\n' 'nvidia-*' 'libnvidia-*' | grep -v container | "
             "sudo xargs zypper addlock";
    case PackageTool::kUnknown:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace gt
