// NVIDIA GPUs as the PCI bus sees them, independent of NVML: a GPU that fell
// off NVML's list (Xid 79, no driver bound) is still on the bus here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/snapshot.h"
#include "util/fs_root.h"
#include "util/result.h"

namespace gt {

/// Every NVIDIA GPU on the PCI bus: entries of <root>/sys/bus/pci/devices/
/// with vendor 0x10de and class 0x0300 (VGA), 0x0302 (3D controller) or
/// 0x0380 (display, other). Fills device_id, class_code, driver (basename of
/// the `driver` symlink target; nullopt when absent), link speeds in GT/s
/// ("Unknown" -> nullopt), widths (0 or garbage -> nullopt), gen derived from
/// speed, numa_node (-1 -> nullopt), model and uuid from
/// <root>/proc/driver/nvidia/gpus/<bus>/information when present. Sorted by bus id. Returns an
/// empty vector when the directory does not exist (no PCI sysfs, e.g. some containers); an Error
/// (with the path) only when it cannot be listed.
Result<std::vector<PciDevice>> read_nvidia_pci_devices(const FsRoot& root);

/// The NVSwitch functions on the bus: vendor 0x10de with class 0x0680
/// (bridge, other), as NVIDIA's HGX baseboards expose them (10de:1af1 on
/// A100 HGX, 10de:22a3 on H100 HGX; the class and vendor alone decide, as
/// aws-parallelcluster-cookbook#3098 counts them to enable Fabric Manager).
/// Sorted bus ids; empty when there are none or no PCI sysfs; an Error
/// only when the directory cannot be listed.
Result<std::vector<std::string>> read_nvswitches(const FsRoot& root);

}  // namespace gt
