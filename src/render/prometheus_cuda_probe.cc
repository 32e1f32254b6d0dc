#include "render/prometheus_cuda_probe.h"

#include <set>
#include <utility>

namespace gt {
namespace {

/// dcgm-exporter's label keys, from what the probe knows of the GPU.
MetricLabels probe_labels(const CudaGpuProbe& g, const std::optional<std::string>& hostname) {
  MetricLabels l;
  if (g.nvml_index) l.emplace_back("gpu", std::to_string(*g.nvml_index));
  if (g.uuid) l.emplace_back("UUID", *g.uuid);
  l.emplace_back("pci_bus_id", g.pci_bus_id);
  if (hostname) l.emplace_back("Hostname", *hostname);
  return l;
}

/// 1 passed, 0 failed, stuck, crashed or not loaded; a skipped GPU, and one
/// whose probe was cut off while its calls still returned (late), proved
/// nothing either way and have no series.
std::optional<double> passed(CudaOutcome o) {
  switch (o) {
    case CudaOutcome::kPassed:
      return 1;
    case CudaOutcome::kSkipped:
    case CudaOutcome::kLate:
      return std::nullopt;
    case CudaOutcome::kFailed:
    case CudaOutcome::kStuck:
    case CudaOutcome::kCrashed:
    case CudaOutcome::kNotLoaded:
      return 0;
  }
  return std::nullopt;
}

void add_gpu(const CudaGpuProbe& g, const std::optional<std::string>& hostname, MetricSet& set) {
  const MetricLabels l = probe_labels(g, hostname);
  if (std::optional<double> ok = passed(g.outcome)) set.add("gpu_triage_cuda_probe_passed", l, *ok);
  if (g.outcome != CudaOutcome::kSkipped)
    set.add("gpu_triage_cuda_probe_duration_seconds", l, g.elapsed_ms / 1000.0);
  if (g.tested_bytes)
    set.add("gpu_triage_cuda_probe_tested_bytes", l, static_cast<double>(*g.tested_bytes));
  if (g.h2d_gb_per_s)
    set.add("gpu_triage_cuda_probe_h2d_bytes_per_second", l, *g.h2d_gb_per_s * 1e9);
  if (g.d2h_gb_per_s)
    set.add("gpu_triage_cuda_probe_d2h_bytes_per_second", l, *g.d2h_gb_per_s * 1e9);
  if (g.link_gb_per_s)
    set.add("gpu_triage_cuda_probe_link_bytes_per_second", l, *g.link_gb_per_s * 1e9);
}

}  // namespace

void add_cuda_probe_metrics(const CudaProbeReport& p, const std::optional<std::string>& hostname,
                            MetricSet& set) {
  for (const CudaGpuProbe& g : p.gpus) add_gpu(g, hostname, set);
  // A pair in two groups (a server's GPUs and the selection) is one series.
  std::set<std::pair<std::string, std::string>> seen;
  for (const CudaPeerGroup& grp : p.peer_groups)
    for (const CudaPeerPair& pair : grp.pairs) {
      if (!pair.can_access) continue;  // the check did not finish: unknown
      if (!seen.emplace(pair.from_bus_id, pair.to_bus_id).second) continue;
      MetricLabels l;
      if (pair.from_index) l.emplace_back("gpu", std::to_string(*pair.from_index));
      l.emplace_back("pci_bus_id", pair.from_bus_id);
      if (pair.to_index) l.emplace_back("peer_gpu", std::to_string(*pair.to_index));
      l.emplace_back("peer_pci_bus_id", pair.to_bus_id);
      if (hostname) l.emplace_back("Hostname", *hostname);
      set.add("gpu_triage_cuda_peer_access", l, *pair.can_access ? 1 : 0);
    }
}

}  // namespace gt
