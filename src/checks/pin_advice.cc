#include "checks/pin_advice.h"

#include <sstream>
#include <vector>

namespace gt {
namespace {

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return v;
}

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

OsRelease parse_os_release(std::string_view text) {
  OsRelease os;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = unquote(line.substr(eq + 1));
    if (key == "ID") os.id = value;
    if (key == "ID_LIKE") os.id_like = value;
    if (key == "PRETTY_NAME") os.pretty_name = value;
  }
  return os;
}

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
