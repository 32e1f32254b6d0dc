// gpu_triage_cuda_probe_* series: what `gpu-triage --cuda` proved on each
// GPU (the figures of the cuda command's probe), for --textfile.
#pragma once

#include <optional>
#include <string>

#include "model/cuda_probe_result.h"
#include "render/prometheus.h"

namespace gt {

/// Adds the probe's per-GPU and per-pair series.
void add_cuda_probe_metrics(const CudaProbeReport& p, const std::optional<std::string>& hostname,
                            MetricSet& set);

}  // namespace gt
