#include "sources/smi_xml/smi_words.h"

#include <gtest/gtest.h>

namespace gt {
namespace smi_words_test {

TEST(SmiWords, RecoveryActionNoneIsTheOnlyHealthyWord) {
  EXPECT_EQ(smi_recovery_action("None"), RecoveryAction::kNone);  // as 570 and 590 print it
  EXPECT_EQ(smi_recovery_action("  None\n"), RecoveryAction::kNone);
  EXPECT_EQ(smi_recovery_action("Frobnicate"), RecoveryAction::kUnknown);
  EXPECT_EQ(smi_recovery_action("Recover IMEX Domain"),
            RecoveryAction::kUnknown);  // value 5: unresolved
  EXPECT_EQ(smi_recovery_action("Drain"), RecoveryAction::kUnknown);
}

TEST(SmiWords, RecoveryActionNamesFromNvmlsEnum) {
  EXPECT_EQ(smi_recovery_action("GPU Reset"), RecoveryAction::kGpuReset);
  EXPECT_EQ(smi_recovery_action("Reset"), RecoveryAction::kGpuReset);
  EXPECT_EQ(smi_recovery_action("Node Reboot"), RecoveryAction::kNodeReboot);
  EXPECT_EQ(smi_recovery_action("Reboot"), RecoveryAction::kNodeReboot);
  EXPECT_EQ(smi_recovery_action("System Reboot"), RecoveryAction::kSystemReboot);
  EXPECT_EQ(smi_recovery_action("Drain P2P"), RecoveryAction::kDrainP2p);
  EXPECT_EQ(smi_recovery_action("Drain and Reset"), RecoveryAction::kDrainAndReset);
  EXPECT_EQ(smi_recovery_action("DRAIN_AND_RESET"), RecoveryAction::kDrainAndReset);
  EXPECT_EQ(smi_recovery_action("Bus Reset"), RecoveryAction::kBusReset);
  EXPECT_EQ(smi_recovery_action("GPU_RESET_BUS"), RecoveryAction::kBusReset);
}

TEST(SmiWords, RecoveryActionNegationIsNeverAnAction) {
  EXPECT_EQ(smi_recovery_action("No reset required"), RecoveryAction::kUnknown);
  EXPECT_EQ(smi_recovery_action("Reset not required"), RecoveryAction::kUnknown);
  EXPECT_EQ(smi_recovery_action("Reboot isn't needed"), RecoveryAction::kUnknown);
  EXPECT_EQ(smi_recovery_action("Node Reboot"), RecoveryAction::kNodeReboot);
}

TEST(SmiWords, RecoveryActionNothingKnown) {
  for (const char* t : {"", "  ", "N/A", "[N/A]", "Unknown Error", "[Unknown Error]",
                        "Requested functionality has been deprecated", "[Not Supported]"})
    EXPECT_EQ(smi_recovery_action(t), std::nullopt) << "'" << t << "'";
}

TEST(SmiWords, FabricState) {
  EXPECT_EQ(smi_fabric_state("Completed"), FabricState::kCompleted);
  EXPECT_EQ(smi_fabric_state("In Progress"), FabricState::kInProgress);
  EXPECT_EQ(smi_fabric_state("Not Started"), FabricState::kNotStarted);
  EXPECT_EQ(smi_fabric_state("Not Supported"), FabricState::kNotSupported);
  EXPECT_EQ(smi_fabric_state("N/A"), std::nullopt);
  EXPECT_EQ(smi_fabric_state("Registered"), std::nullopt);  // unknown word: null, not a guess
}

TEST(SmiWords, FabricStatusKeepsAnyOtherWords) {
  EXPECT_EQ(smi_fabric_status("Success"), "success");
  EXPECT_EQ(smi_fabric_status(" Timeout "), "Timeout");
  EXPECT_EQ(smi_fabric_status("N/A"), std::nullopt);
}

TEST(SmiWords, FabricHealth) {
  EXPECT_EQ(smi_fabric_summary("Healthy"), FabricHealthSummary::kHealthy);
  EXPECT_EQ(smi_fabric_summary("Unhealthy"), FabricHealthSummary::kUnhealthy);
  EXPECT_EQ(smi_fabric_summary("Limited Capacity"), FabricHealthSummary::kLimitedCapacity);
  EXPECT_EQ(smi_fabric_summary("Fine"), std::nullopt);
  EXPECT_EQ(smi_fabric_condition("Full"), false);
  EXPECT_EQ(smi_fabric_condition("Degraded"), true);
  EXPECT_EQ(smi_fabric_condition("True"), true);
  EXPECT_EQ(smi_fabric_condition("False"), false);
  EXPECT_EQ(smi_fabric_condition("Maybe"), std::nullopt);
  EXPECT_EQ(smi_fabric_incorrect_configuration("None"), "none");
  EXPECT_EQ(smi_fabric_incorrect_configuration("Incorrect SysGUID"), "wrong_sysguid");
  EXPECT_EQ(smi_fabric_incorrect_configuration("Insufficient NVLinks"), "insufficient_nvlinks");
  EXPECT_EQ(smi_fabric_incorrect_configuration("Odd"), std::nullopt);
}

}  // namespace smi_words_test
}  // namespace gt
