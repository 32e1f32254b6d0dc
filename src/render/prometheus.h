// Prometheus text format (0.0.4) of a Report, for `gpu-triage serve`'s
// /metrics and for --textfile (node_exporter's textfile collector).
//
// Conventions (ecosystem.md section 3): names under gpu_triage_ in base
// units (bytes, seconds, celsius, watts, ratio 0-1), counters end in _total,
// no sample timestamps. Per-GPU series carry dcgm-exporter's label keys
// (gpu, UUID, pci_bus_id, modelName, Hostname) so dashboards can join on
// them. An unknown value is never written as 0: its series is left out, and
// an unknown label value leaves the label out. Every metric is listed in
// render/prometheus_metrics.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/report.h"

namespace gt {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

/// Collects samples and writes them grouped by metric, in the order of
/// prometheus_metric_specs(), each group under its # HELP and # TYPE.
class MetricSet {
 public:
  /// Adds a sample. A second sample with the same name and labels is added
  /// to the first (findings are counted that way). Throws std::logic_error
  /// for a name missing from the spec table: a programming error.
  void add(const std::string& name, const MetricLabels& labels, double value);

  /// Writes every metric with at least one sample.
  void write(std::ostream& out) const;

 private:
  struct Sample {
    std::string labels;  ///< rendered "{k="v",...}" or ""
    double value;
  };
  std::map<std::string, std::vector<Sample>> metrics_;  ///< name -> samples, in order
  std::unordered_map<std::string, size_t> index_;       ///< name + labels -> position
};

/// What the report itself does not know.
struct PrometheusContext {
  std::string version;  ///< gpu-triage's version (gpu_triage_build_info)
  std::optional<double> collection_duration_s;
};

/// State of `gpu-triage serve`, written after the report's metrics.
struct ServeMetrics {
  std::optional<double> report_age_s;  ///< null before the first collection
  bool collection_in_progress = false;
  uint64_t collections = 0;
  uint64_t collections_abandoned = 0;
  bool collector_halted = false;
};

/// Adds the report's metrics to `set`.
void add_report_metrics(const Report& report, const PrometheusContext& ctx, MetricSet& set);

/// Adds serve's own metrics to `set`; `hostname` labels them when known.
void add_serve_metrics(const ServeMetrics& m, const std::optional<std::string>& hostname,
                       MetricSet& set);

/// The report's metrics as Prometheus text.
std::string render_prometheus(const Report& report, const PrometheusContext& ctx);

/// A sample value as Prometheus writes it: integers without a fraction,
/// NaN, +Inf, -Inf, else the shortest exact form.
std::string format_metric_value(double v);

/// A label value escaped for the text format (\\, \", \n).
std::string escape_label_value(const std::string& v);

}  // namespace gt
