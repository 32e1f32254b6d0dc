#include "sources/sysfs/pci_path.h"

#include <cctype>

#include "util/path_in_root.h"

namespace gt {
namespace {

/// Hex digits as sysfs prints them ("%04x:%02x:%02x.%d"): lowercase.
bool pci_hex_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) ||
        std::isupper(static_cast<unsigned char>(c)))
      return false;
  return true;
}

/// "pci0000:15": a host bridge's folder (domain of 4 to 8 hex digits).

}  // namespace

bool is_host_bridge(std::string_view c) {
  if (!c.starts_with("pci")) return false;
  c.remove_prefix(3);
  const size_t colon = c.find(':');
  if (colon == std::string_view::npos || colon < 4 || colon > 8) return false;
  return pci_hex_digits(c.substr(0, colon)) && c.size() == colon + 3 &&
         pci_hex_digits(c.substr(colon + 1));
}

std::vector<std::string_view> pci_path_components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t e = path.find('/', i);
    if (e == std::string_view::npos) e = path.size();
    if (e > i) out.push_back(path.substr(i, e - i));
    i = e + 1;
  }
  return out;
}

bool is_pci_address(std::string_view s) {
  // dddd:bb:dd.f
  const size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 < 4 || c1 > 8 || !pci_hex_digits(s.substr(0, c1)))
    return false;
  std::string_view rest = s.substr(c1 + 1);
  if (rest.size() != 7 || rest[2] != ':' || rest[5] != '.') return false;
  return pci_hex_digits(rest.substr(0, 2)) && pci_hex_digits(rest.substr(3, 2)) && rest[6] >= '0' &&
         rest[6] <= '7';
}

std::optional<std::vector<PciBridgeDir>> bridges_in_path(std::string_view resolved,
                                                         std::string_view bus_id) {
  if (!resolved.starts_with("/sys/devices/")) return std::nullopt;
  const std::vector<std::string_view> parts = pci_path_components(resolved);
  size_t host = parts.size();
  for (size_t i = 0; i < parts.size(); ++i)
    if (is_host_bridge(parts[i])) host = i;
  if (host + 1 >= parts.size() || parts.back() != bus_id) return std::nullopt;
  std::vector<PciBridgeDir> out;
  std::string dir;
  for (size_t i = 0; i <= host; ++i) dir += "/" + std::string(parts[i]);
  for (size_t i = host + 1; i + 1 < parts.size(); ++i) {
    if (!is_pci_address(parts[i]) || out.size() == kMaxPciBridges) return std::nullopt;
    dir += "/" + std::string(parts[i]);
    out.push_back({std::string(parts[i]), dir});
  }
  return out;
}

std::optional<std::string> resolve_pci_device(const FsRoot& root, const std::string& bus_id) {
  if (!is_pci_address(bus_id)) return std::nullopt;
  const std::string entry = "/sys/bus/pci/devices/" + bus_id;
  // Read as a link first: the bundle keeps what was read, the link with it.
  if (!root.read_link(entry)) return std::nullopt;
  Result<PathInRoot> at = resolve_in_root(root, entry);
  if (!at || !at->exists) return std::nullopt;
  return at->path;
}

std::optional<std::vector<PciBridgeDir>> read_upstream_bridges(const FsRoot& root,
                                                               const std::string& bus_id) {
  const std::optional<std::string> at = resolve_pci_device(root, bus_id);
  if (!at) return std::nullopt;
  return bridges_in_path(*at, bus_id);
}

}  // namespace gt
