// nvidia-smi's words for the driver's enum values -> the model's canonical
// names (model/snapshot.h RecoveryState, FabricInfo). Pure functions of the
// text as printed. A word we do not know gives null (or "unknown" for the
// recovery action, which must never read as healthy), never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/driver_recovery.h"
#include "model/fabric_state.h"

namespace gt {

/// gpu_recovery_action: "None" -> kNone, else a reset, reboot or drain
/// action its words name, or kUnknown for any other word; null for "N/A",
/// "[N/A]", "Unknown Error", "Requested functionality has been deprecated"
/// and empty text.
std::optional<RecoveryAction> smi_recovery_action(std::string_view text);

/// fabric/state: "Not Supported", "Not Started", "In Progress", "Completed"
/// -> the state; else null.
std::optional<FabricState> smi_fabric_state(std::string_view text);

/// fabric/status: "Success" -> "success"; any other value as printed (an
/// NVML return's words); null when not available.
std::optional<std::string> smi_fabric_status(std::string_view text);

/// fabric/health/summary: "Healthy", "Unhealthy", "Limited Capacity" ->
/// the summary; else null.
std::optional<FabricHealthSummary> smi_fabric_summary(std::string_view text);

/// One fabric/health condition (bandwidth degraded, route recovery in
/// progress, route unhealthy, access timeout recovery): whether it holds.
std::optional<bool> smi_fabric_condition(std::string_view text);

/// fabric/health/incorrect_configuration: "None" -> "none", else one of the
/// model's names; null for a word we do not know.
std::optional<std::string> smi_fabric_incorrect_configuration(std::string_view text);

}  // namespace gt
