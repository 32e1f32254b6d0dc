#include "model/driver_recovery.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gt {

TEST(DriverRecovery, EveryActionHasOneNameThatParsesBack) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(RecoveryAction::kUnknown); ++i) {
    const auto a = static_cast<RecoveryAction>(i);
    const std::string name = recovery_action_name(a);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(parse_recovery_action(name), a) << name;
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"none", "gpu_reset", "node_reboot", "drain_p2p",
                                   "drain_and_reset", "bus_reset", "system_reboot", "unknown"}));
  EXPECT_EQ(parse_recovery_action("gpu-reset"), std::nullopt);
  EXPECT_EQ(parse_recovery_action(""), std::nullopt);
}

TEST(DriverRecovery, NvmlNumbersNameOnlyWhatTheSourcesAgreeOn) {
  EXPECT_EQ(recovery_action_of_code(0), RecoveryAction::kNone);
  EXPECT_EQ(recovery_action_of_code(1), RecoveryAction::kGpuReset);
  EXPECT_EQ(recovery_action_of_code(2), RecoveryAction::kNodeReboot);
  EXPECT_EQ(recovery_action_of_code(3), RecoveryAction::kDrainP2p);
  EXPECT_EQ(recovery_action_of_code(4), RecoveryAction::kDrainAndReset);
  EXPECT_EQ(recovery_action_of_code(5), RecoveryAction::kUnknown);  // IMEX domain or bus reset
  EXPECT_EQ(recovery_action_of_code(6), RecoveryAction::kBusReset);
  EXPECT_EQ(recovery_action_of_code(7), RecoveryAction::kSystemReboot);
  EXPECT_EQ(recovery_action_of_code(8), RecoveryAction::kUnknown);
  EXPECT_EQ(recovery_action_of_code(UINT64_MAX), RecoveryAction::kUnknown);
}

}  // namespace gt
