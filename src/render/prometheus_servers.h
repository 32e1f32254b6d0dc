// gpu_triage_server_* series: one set per server holding GPU memory.
#pragma once

#include "model/snapshot.h"
#include "render/prometheus.h"

namespace gt {

/// Adds the servers of `s` (nothing when they were not grouped).
void add_server_metrics(const NodeSnapshot& s, MetricSet& set);

}  // namespace gt
