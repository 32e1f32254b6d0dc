// The table of every metric gpu-triage exports (serve's /metrics and
// --textfile): name, type and help. Names and label keys are a public
// interface, listed in docs/fleet-integration.md; a unit test checks both.
#pragma once

#include <string_view>
#include <vector>

namespace gt {

struct MetricSpec {
  std::string_view name;  ///< gpu_triage_..., base units, counters end in _total
  std::string_view type;  ///< "gauge" or "counter"
  std::string_view help;  ///< one line; label keys named
};

/// Every metric, in the order they are written.
const std::vector<MetricSpec>& prometheus_metric_specs();

/// The spec named `name`, or nullptr.
const MetricSpec* find_metric_spec(std::string_view name);

}  // namespace gt
