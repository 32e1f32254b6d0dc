// JSON for the driver's own health signals of one GPU (docs/json.md,
// "gpus[]: the driver's signals"): recovery action, row remapper histogram,
// fabric, NVLinks, thermal margin, time in limits, MIG devices. Split from
// json_report.cc so each reads at a glance; unknown values are null.
#pragma once

#include <nlohmann/json.hpp>

#include "model/snapshot.h"

namespace gt {

/// Adds "recovery", "row_remapper_histogram", "fabric", "nvlinks",
/// "thermal", "limit_time", "clocks_event_reasons_samples" and
/// "mig_devices" to a GPU's object.
void add_gpu_health_json(const GpuState& g, nlohmann::ordered_json& j);

}  // namespace gt
