// NVSwitch fabric registration (nvml-abi 8.4): the GPU's registration
// state and the driver's health summary, typed; only renderers and readers
// turn them into words (docs/json.md fabric.state, fabric.health.summary).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gt {

enum class FabricState {
  kNotSupported,
  kNotStarted,
  kInProgress,
  kCompleted,
  kUnknown,  ///< a value this version cannot name (FabricInfo::state_code keeps it)
};
inline constexpr std::array kFabricStates{FabricState::kNotSupported, FabricState::kNotStarted,
                                          FabricState::kInProgress, FabricState::kCompleted,
                                          FabricState::kUnknown};

/// "not_supported", "not_started", "in_progress", "completed", "unknown".
const char* fabric_state_name(FabricState s);
std::optional<FabricState> parse_fabric_state(std::string_view word);

enum class FabricHealthSummary {
  kHealthy,
  kUnhealthy,
  kLimitedCapacity,
  kUnknown,  ///< a value this version cannot name (health_summary_code keeps it)
};
inline constexpr std::array kFabricHealthSummaries{
    FabricHealthSummary::kHealthy, FabricHealthSummary::kUnhealthy,
    FabricHealthSummary::kLimitedCapacity, FabricHealthSummary::kUnknown};

/// "healthy", "unhealthy", "limited_capacity", "unknown".
const char* fabric_health_summary_name(FabricHealthSummary s);
std::optional<FabricHealthSummary> parse_fabric_health_summary(std::string_view word);

/// How a value this version cannot name is written: "unknown(5)" for NVML's
/// 5; `name` itself when there is no number.
std::string name_with_code(const char* name, std::optional<uint32_t> code);

}  // namespace gt
