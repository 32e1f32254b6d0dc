#include "model/fabric_state.h"

#include <array>

namespace gt {

const char* fabric_state_name(FabricState s) {
  switch (s) {
    case FabricState::kNotSupported:
      return "not_supported";
    case FabricState::kNotStarted:
      return "not_started";
    case FabricState::kInProgress:
      return "in_progress";
    case FabricState::kCompleted:
      return "completed";
    case FabricState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<FabricState> parse_fabric_state(std::string_view word) {
  static constexpr std::array kAll{FabricState::kNotSupported, FabricState::kNotStarted,
                                   FabricState::kInProgress, FabricState::kCompleted,
                                   FabricState::kUnknown};
  for (FabricState s : kAll)
    if (word == fabric_state_name(s)) return s;
  return std::nullopt;
}

const char* fabric_health_summary_name(FabricHealthSummary s) {
  switch (s) {
    case FabricHealthSummary::kHealthy:
      return "healthy";
    case FabricHealthSummary::kUnhealthy:
      return "unhealthy";
    case FabricHealthSummary::kLimitedCapacity:
      return "limited_capacity";
    case FabricHealthSummary::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<FabricHealthSummary> parse_fabric_health_summary(std::string_view word) {
  static constexpr std::array kAll{FabricHealthSummary::kHealthy, FabricHealthSummary::kUnhealthy,
                                   FabricHealthSummary::kLimitedCapacity,
                                   FabricHealthSummary::kUnknown};
  for (FabricHealthSummary s : kAll)
    if (word == fabric_health_summary_name(s)) return s;
  return std::nullopt;
}

std::string name_with_code(const char* name, std::optional<uint32_t> code) {
  if (!code) return name;
  return std::string(name) + "(" + std::to_string(*code) + ")";
}

}  // namespace gt
