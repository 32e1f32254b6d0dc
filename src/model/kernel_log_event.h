// The typed words of a kernel-log event (model/snapshot.h KernelLogEvent):
// what kind of line it was and which boot's log it came from. The JSON,
// Prometheus and text renderers print them through the name functions here,
// and the JSON reader reads them back through the same names; every other
// layer compares the enums.
#pragma once

#include <array>

namespace gt {

/// What a kernel-log line reported. Declared in the order of the names
/// (alphabetical), so containers keyed by it sort as they did by the word.
enum class EventKind {
  kFallenOffBus,  ///< "GPU has fallen off the bus" without an Xid
  kSxid,          ///< "nvidia-nvswitchN: SXid (PCI:...): <code>, ..."
  kXid,           ///< "NVRM: Xid (<bus>): <code>, ..."
};
inline constexpr std::array kEventKinds{EventKind::kFallenOffBus, EventKind::kSxid,
                                        EventKind::kXid};
/// "fallen-off-bus", "sxid", "xid".
const char* event_kind_name(EventKind k);

/// Which boot a kernel-log line belongs to. Alphabetical as above.
enum class LogBoot {
  kCurrent,   ///< this boot (/dev/kmsg, kern.log after btime)
  kFile,      ///< --kernel-log FILE: a file of no known boot
  kPrevious,  ///< the boot before (journalctl -k -b -1, kern.log before btime)
};
inline constexpr std::array kLogBoots{LogBoot::kCurrent, LogBoot::kFile, LogBoot::kPrevious};
/// "current", "file", "previous".
const char* log_boot_name(LogBoot b);

}  // namespace gt
