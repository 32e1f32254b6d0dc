// Driver events as watch says them: one Change per event, with the GPU (by
// its PCI bus id in this tick's snapshot) and the server holding it, and
// the catalogue's words (the same rows the triage's gpu.xid.* use).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/snapshot.h"
#include "watch/changes.h"

namespace gt {

/// The GPU index whose bus id is `bus` ("0000:5d:00.0" or NVML's
/// "00000000:5D:00.0"), both normalized (normalize_pci_bus_id).
std::optional<uint32_t> gpu_index_by_bus(const NodeSnapshot& snap, const std::string& bus);

/// A kernel-log event (Xid, SXid, fallen off the bus) as a change.
Change kernel_event_change(const KernelLogEvent& e, const NodeSnapshot& snap, int64_t now_unix_ms);

/// Fills c.server from c.gpu_index when empty, and turns a bare server id
/// ("pid-3141", a finding's subject) into its description.
void attribute(Change& c, const NodeSnapshot& snap);

}  // namespace gt
