// Where a PCI function sits in the PCIe tree, from its sysfs path. On a
// live node /sys/bus/pci/devices/<bdf> is a link into the device tree,
// ../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/<bdf>:
// the folder of each bridge on the way down from the host bridge
// ("pci<domain>:<bus>"), the first of them the root port. A fixture tree of
// plain folders (or a path of another form) has no such path: the bridges
// are then unknown, never guessed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs_root.h"

namespace gt {

/// A bridge above a function: its address and its folder as the node sees
/// it ("/sys/devices/pci0000:15/0000:15:01.0").
struct PciBridgeDir {
  std::string bus_id;
  std::string dir;
  bool operator==(const PciBridgeDir&) const = default;
};

/// At most this many bridges between a host bridge and a function (real
/// hierarchies have a few: a root port and two switch levels).
inline constexpr size_t kMaxPciBridges = 16;

/// Whether `s` is a PCI address as sysfs names it: "0000:15:01.0" (a
/// domain of 4 to 8 hex digits, bus and device of two, function 0-7).
bool is_pci_address(std::string_view s);

/// The non-empty components of a path: "/sys/devices/pci0000:15/x" ->
/// {"sys", "devices", "pci0000:15", "x"}.
std::vector<std::string_view> pci_path_components(std::string_view path);

/// Whether `c` is a host bridge's folder: "pci0000:15" (a domain of 4 to 8
/// hex digits, a bus of two).
bool is_host_bridge(std::string_view c);

/// The bridges (root port first) of `bus_id` in its resolved sysfs path
/// "/sys/devices/.../pci0000:15/0000:15:01.0/.../<bus_id>": every component
/// after the last host bridge a PCI address, the last one `bus_id`, and at
/// most kMaxPciBridges. Nullopt for a path of any other form.
std::optional<std::vector<PciBridgeDir>> bridges_in_path(std::string_view resolved,
                                                         std::string_view bus_id);

/// Where the link /sys/bus/pci/devices/<bus_id> leads, followed inside the
/// root and read as a link first (so a bundle keeps it); nullopt when it is
/// no link or cannot be followed.
std::optional<std::string> resolve_pci_device(const FsRoot& root, const std::string& bus_id);

/// The bridges above the function /sys/bus/pci/devices/<bus_id>: its link
/// followed inside the root (util/path_in_root.h, so a link never leads out
/// of a fixture tree and a loop ends). Nullopt when it is no link, cannot
/// be followed, or leads to a path of no known form.
std::optional<std::vector<PciBridgeDir>> read_upstream_bridges(const FsRoot& root,
                                                               const std::string& bus_id);

}  // namespace gt
