#include "sources/procfs/os_release.h"

#include <sstream>
#include <string>

namespace gt {
namespace {

/// A value as the shell would read it: one pair of matching quotes removed.
std::string os_release_value(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

OsRelease parse_os_release(std::string_view text) {
  OsRelease os;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = os_release_value(line.substr(eq + 1));
    if (key == "ID") os.id = value;
    if (key == "ID_LIKE") os.id_like = value;
    if (key == "PRETTY_NAME") os.pretty_name = value;
  }
  return os;
}

std::optional<OsRelease> read_os_release(const FsRoot& root) {
  Result<std::string> text = root.read("/etc/os-release");
  if (!text) text = root.read("/usr/lib/os-release");
  if (!text) return std::nullopt;
  return parse_os_release(*text);
}

}  // namespace gt
