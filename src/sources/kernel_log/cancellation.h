// Cancellation (xid-catalog.md, "Recovery and cancellation"): Xid 162 (power
// smoothing re-engaged, ISINK_REENGAGED) cancels an Xid 163 (disengaged)
// logged before it on the same GPU in the same boot, NVSentinel's only
// default rule. Works on folded events: a 163 is cancelled when its last line
// is not later than the 162's last line; when either has no time the order
// is unknown and nothing is cancelled.
#pragma once

#include <vector>

#include "model/snapshot.h"

namespace gt::klog {

/// Sets cancelled_by_code (162) on each cancelled Xid 163; clears it on the others.
void mark_cancellations(std::vector<KernelLogEvent>& events);

}  // namespace gt::klog
