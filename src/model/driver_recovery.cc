#include "model/driver_recovery.h"

#include "model/enum_words.h"

namespace gt {

const char* recovery_action_name(RecoveryAction a) {
  switch (a) {
    case RecoveryAction::kNone:
      return "none";
    case RecoveryAction::kGpuReset:
      return "gpu_reset";
    case RecoveryAction::kNodeReboot:
      return "node_reboot";
    case RecoveryAction::kDrainP2p:
      return "drain_p2p";
    case RecoveryAction::kDrainAndReset:
      return "drain_and_reset";
    case RecoveryAction::kBusReset:
      return "bus_reset";
    case RecoveryAction::kSystemReboot:
      return "system_reboot";
    case RecoveryAction::kUnknown:
      return "unknown";
  }
  return "?";  // not an enumerator: model_words_test finds one missing a case
}

std::optional<RecoveryAction> parse_recovery_action(std::string_view word) {
  return enum_of_word(kRecoveryActions, recovery_action_name, word);
}

RecoveryAction recovery_action_of_code(uint64_t code) {
  switch (code) {
    case 0:
      return RecoveryAction::kNone;
    case 1:
      return RecoveryAction::kGpuReset;
    case 2:
      return RecoveryAction::kNodeReboot;
    case 3:
      return RecoveryAction::kDrainP2p;
    case 4:
      return RecoveryAction::kDrainAndReset;
    case 6:
      return RecoveryAction::kBusReset;
    case 7:
      return RecoveryAction::kSystemReboot;
  }
  return RecoveryAction::kUnknown;
}

}  // namespace gt
