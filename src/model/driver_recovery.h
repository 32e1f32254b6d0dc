// The driver's recovery action for a GPU (nvml-abi 8.3): NVML field 230
// (nvmlDeviceGpuRecoveryAction_t), a capture's gpu_recovery_action, the
// action an Xid 154 announces. Typed here; only renderers and readers turn
// it into words.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gt {

enum class RecoveryAction {
  kNone,
  kGpuReset,
  kNodeReboot,
  kDrainP2p,
  kDrainAndReset,
  kBusReset,
  kSystemReboot,
  /// A value this version cannot name: never read as healthy (the number
  /// or the capture's words are kept beside it).
  kUnknown,
};
inline constexpr std::array kRecoveryActions{
    RecoveryAction::kNone,         RecoveryAction::kGpuReset,      RecoveryAction::kNodeReboot,
    RecoveryAction::kDrainP2p,     RecoveryAction::kDrainAndReset, RecoveryAction::kBusReset,
    RecoveryAction::kSystemReboot, RecoveryAction::kUnknown};

/// "none", "gpu_reset", "node_reboot", "drain_p2p", "drain_and_reset",
/// "bus_reset", "system_reboot", "unknown" (docs/json.md recovery.action).
const char* recovery_action_name(RecoveryAction a);

/// The inverse of recovery_action_name; nullopt for any other word.
std::optional<RecoveryAction> parse_recovery_action(std::string_view word);

/// nvmlDeviceGpuRecoveryAction_t's number -> the action: 0 none, 1 GPU
/// reset, 2 node reboot, 3 drain P2P, 4 drain and reset, 6 bus reset, 7
/// system reboot. 5 is RECOVER_IMEX_DOMAIN in the 13.3 header but
/// GPU_RESET_BUS in nvidia-ml-py (nvml-abi 8.3): naming it either way could
/// send someone to the wrong fix, so it is kUnknown, as is any larger value.
RecoveryAction recovery_action_of_code(uint64_t code);

}  // namespace gt
