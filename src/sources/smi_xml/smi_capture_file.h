// gpu-triage --smi-xml FILE: the snapshot of the node a capture came from.
#pragma once

#include <string>

#include "model/snapshot.h"
#include "util/result.h"

namespace gt {

/// Reads FILE ("-" = stdin) and fills `snap` from it (XML or a one-line
/// nvidia-smi error). Nothing of this machine is read: a capture is another
/// node, so its kernel log, disks, PCI bus and /proc stay out (kernel_log
/// null, disks and pci_devices empty) and the snapshot says so in warnings.
Status fill_from_smi_capture(const std::string& file, NodeSnapshot& snap);

}  // namespace gt
