// nvidia-smi's words for the driver's enum values -> the model's canonical
// names (model/snapshot.h RecoveryState, FabricInfo). Pure functions of the
// text as printed. A word we do not know gives null (or "unknown" for the
// recovery action, which must never read as healthy), never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gt {

/// gpu_recovery_action: "None" -> "none", else "gpu_reset", "node_reboot",
/// "system_reboot", "drain_p2p", "drain_and_reset", "bus_reset", or
/// "unknown" for any other word; null for "N/A", "[N/A]", "Unknown Error",
/// "Requested functionality has been deprecated" and empty text.
std::optional<std::string> smi_recovery_action(std::string_view text);

/// fabric/state: "Not Supported", "Not Started", "In Progress", "Completed"
/// -> "not_supported", "not_started", "in_progress", "completed"; else null.
std::optional<std::string> smi_fabric_state(std::string_view text);

/// fabric/status: "Success" -> "success"; any other value as printed (an
/// NVML return's words); null when not available.
std::optional<std::string> smi_fabric_status(std::string_view text);

/// fabric/health/summary: "Healthy", "Unhealthy", "Limited Capacity" ->
/// "healthy", "unhealthy", "limited_capacity"; else null.
std::optional<std::string> smi_fabric_summary(std::string_view text);

/// One fabric/health condition (bandwidth degraded, route recovery in
/// progress, route unhealthy, access timeout recovery): whether it holds.
std::optional<bool> smi_fabric_condition(std::string_view text);

/// fabric/health/incorrect_configuration: "None" -> "none", else one of the
/// model's names; null for a word we do not know.
std::optional<std::string> smi_fabric_incorrect_configuration(std::string_view text);

}  // namespace gt
