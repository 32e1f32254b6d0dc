// NVIDIA events in kernel-log text: Xid, SXid and "fallen off the bus" lines
// (and their continuation lines), parsed line by line and folded per
// (kind, code, bus id, boot) as they come (storm.h). The public entry point
// is parse_kernel_log_text (kernel_log.h); the readers use parse_text to set
// each line's boot and wall time before it is folded.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "sources/kernel_log/kernel_log.h"

namespace gt::klog {

/// Called for each event before it is folded: may set its boot or wall time,
/// or return false to drop it.
using EventHook = std::function<bool(KernelLogEvent&)>;

/// parse_kernel_log_text with a hook.
ParsedKernelLog parse_text(std::string_view text, LogBoot boot, const EventHook& hook = {});

}  // namespace gt::klog
