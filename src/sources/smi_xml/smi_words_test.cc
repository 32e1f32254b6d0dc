#include "sources/smi_xml/smi_words.h"

#include <gtest/gtest.h>

namespace gt {
namespace smi_words_test {

TEST(SmiWords, RecoveryActionNoneIsTheOnlyHealthyWord) {
  EXPECT_EQ(smi_recovery_action("None"), "none");  // as 570 and 590 print it
  EXPECT_EQ(smi_recovery_action("  None\n"), "none");
  EXPECT_EQ(smi_recovery_action("Frobnicate"), "unknown");
  EXPECT_EQ(smi_recovery_action("Recover IMEX Domain"), "unknown");  // value 5: unresolved
  EXPECT_EQ(smi_recovery_action("Drain"), "unknown");
}

TEST(SmiWords, RecoveryActionNamesFromNvmlsEnum) {
  EXPECT_EQ(smi_recovery_action("GPU Reset"), "gpu_reset");
  EXPECT_EQ(smi_recovery_action("Reset"), "gpu_reset");
  EXPECT_EQ(smi_recovery_action("Node Reboot"), "node_reboot");
  EXPECT_EQ(smi_recovery_action("Reboot"), "node_reboot");
  EXPECT_EQ(smi_recovery_action("System Reboot"), "system_reboot");
  EXPECT_EQ(smi_recovery_action("Drain P2P"), "drain_p2p");
  EXPECT_EQ(smi_recovery_action("Drain and Reset"), "drain_and_reset");
  EXPECT_EQ(smi_recovery_action("DRAIN_AND_RESET"), "drain_and_reset");
  EXPECT_EQ(smi_recovery_action("Bus Reset"), "bus_reset");
  EXPECT_EQ(smi_recovery_action("GPU_RESET_BUS"), "bus_reset");
}

TEST(SmiWords, RecoveryActionNegationIsNeverAnAction) {
  EXPECT_EQ(smi_recovery_action("No reset required"), "unknown");
  EXPECT_EQ(smi_recovery_action("Reset not required"), "unknown");
  EXPECT_EQ(smi_recovery_action("Reboot isn't needed"), "unknown");
  EXPECT_EQ(smi_recovery_action("Node Reboot"), "node_reboot");
}

TEST(SmiWords, RecoveryActionNothingKnown) {
  for (const char* t : {"", "  ", "N/A", "[N/A]", "Unknown Error", "[Unknown Error]",
                        "Requested functionality has been deprecated", "[Not Supported]"})
    EXPECT_EQ(smi_recovery_action(t), std::nullopt) << "'" << t << "'";
}

TEST(SmiWords, FabricState) {
  EXPECT_EQ(smi_fabric_state("Completed"), "completed");
  EXPECT_EQ(smi_fabric_state("In Progress"), "in_progress");
  EXPECT_EQ(smi_fabric_state("Not Started"), "not_started");
  EXPECT_EQ(smi_fabric_state("Not Supported"), "not_supported");
  EXPECT_EQ(smi_fabric_state("N/A"), std::nullopt);
  EXPECT_EQ(smi_fabric_state("Registered"), std::nullopt);  // unknown word: null, not a guess
}

TEST(SmiWords, FabricStatusKeepsAnyOtherWords) {
  EXPECT_EQ(smi_fabric_status("Success"), "success");
  EXPECT_EQ(smi_fabric_status(" Timeout "), "Timeout");
  EXPECT_EQ(smi_fabric_status("N/A"), std::nullopt);
}

TEST(SmiWords, FabricHealth) {
  EXPECT_EQ(smi_fabric_summary("Healthy"), "healthy");
  EXPECT_EQ(smi_fabric_summary("Unhealthy"), "unhealthy");
  EXPECT_EQ(smi_fabric_summary("Limited Capacity"), "limited_capacity");
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
