#include "model/fabric_state.h"

#include "model/enum_words.h"

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
  return "?";
}

std::optional<FabricState> parse_fabric_state(std::string_view word) {
  return enum_of_word(kFabricStates, fabric_state_name, word);
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
  return "?";
}

std::optional<FabricHealthSummary> parse_fabric_health_summary(std::string_view word) {
  return enum_of_word(kFabricHealthSummaries, fabric_health_summary_name, word);
}

std::string name_with_code(const char* name, std::optional<uint32_t> code) {
  if (!code) return name;
  return std::string(name) + "(" + std::to_string(*code) + ")";
}

}  // namespace gt
