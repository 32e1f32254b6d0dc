// Is this node a virtual machine? The advice for GPUs missing from the PCI
// bus depends on it: in a VM the hypervisor did not pass them through; on
// bare metal it is the BIOS, the slot or the power.
#pragma once

#include <optional>
#include <string>

#include "util/fs_root.h"

namespace gt {

struct MachineKind {
  std::string kind;      ///< "vm" or "bare-metal"
  std::string evidence;  ///< "DMI: QEMU Standard PC (Q35 + ICH9, 2009); cpuinfo: hypervisor flag"
};

/// Reads /proc/cpuinfo's flags (the "hypervisor" bit x86 CPUs show a guest)
/// and DMI (/sys/class/dmi/id/sys_vendor, product_name). A VM: the flag, or
/// a DMI vendor or product of a known hypervisor or cloud VM (an EC2
/// "*.metal" product is bare metal). Bare metal: DMI or the x86 flags read
/// and neither says VM. nullopt when neither could be read (no DMI on many
/// ARM boards, a sandbox): unknown, never guessed.
std::optional<MachineKind> read_machine_kind(const FsRoot& root);

}  // namespace gt
