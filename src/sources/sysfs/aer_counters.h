// The AER counters of the NVIDIA GPUs and of the bridges above them
// (model/pcie_aer.h). The kernel (drivers/pci/pcie/aer.c, since 4.19)
// writes, for every AER-capable function:
//   aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal: one "NAME COUNT"
//     line per error it has a name for ("RxErr 0", "BadTLP 2" on 5.x and
//     later; "Receiver Error 2" on 4.19/4.20, names with spaces), one
//     "<array>_bit[N] COUNT" line for an unnamed bit that counted, then
//     "TOTAL_ERR_COR N" / "TOTAL_ERR_NONFATAL N" / "TOTAL_ERR_FATAL N":
//     the ERR_* messages seen (one message may carry several errors).
//   aer_rootport_total_err_cor / _fatal / _nonfatal (root ports and event
//     collectors only): "N\n", the messages received from the hierarchy.
// Absent on a function without the capability (a VM's emulated bridges,
// most consumer boards): null, never zero. A file that does not read so
// (cut short, garbage, a count past 2^64) is null too: nothing is claimed
// from it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

/// Bounds of an aer_dev_* file as read: the kernel's has some 20 lines of
/// short names in well under 1 KiB.
inline constexpr size_t kMaxAerFileBytes = 8192;
inline constexpr size_t kMaxAerLines = 64;
inline constexpr size_t kMaxAerNameBytes = 64;
inline constexpr size_t kMaxAerErrorsKept = 32;  ///< named errors kept per file

/// A whole aer_dev_* file: every line "NAME COUNT" (NAME printable, at most
/// 64 bytes), the last one "TOTAL_<total_key> COUNT" (total_key "ERR_COR",
/// "ERR_NONFATAL", "ERR_FATAL"); at most 64 lines. Nullopt otherwise.
std::optional<AerCounter> parse_aer_counter(std::string_view text, std::string_view total_key);

/// The counters in the function folder `dir` ("/sys/bus/pci/devices/X").
AerCounters read_aer_counters(const FsRoot& root, const std::string& dir);

/// Fills each of `s.pci_devices`' aer and upstream_bridges, and
/// s.pcie_bridges with every bridge named (each read once).
void read_pcie_aer(const FsRoot& root, NodeSnapshot& s);

/// The totals read now of every GPU and bridge, for the window's start:
/// the bus ids and totals of a fresh read of the bus.
std::vector<std::pair<std::string, AerTotals>> read_aer_window_start(const FsRoot& root);

/// Sets at_window_start of each GPU and bridge of `s` read in `start`.
void set_aer_window_start(NodeSnapshot& s,
                          const std::vector<std::pair<std::string, AerTotals>>& start);

}  // namespace gt
