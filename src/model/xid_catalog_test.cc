#include "model/xid_catalog.h"

#include <gtest/gtest.h>

#include <string>

namespace gt {
namespace xid_catalog_test {

TEST(XidCatalog, Xid79FallenOffBusIsCriticalWithRebootAction) {
  const XidEntry* e = find_xid(79);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->severity, Severity::kCritical);
  EXPECT_STREQ(e->mnemonic, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_STREQ(e->immediate_action, "RESTART_BM");
  EXPECT_NE(std::string(e->action_text).find("reboot"), std::string::npos);
}

TEST(XidCatalog, FallenOffBusWithoutXidIsTheXid79Row) {
  EXPECT_EQ(&fallen_off_bus_entry(), find_xid(79));
}

TEST(XidCatalog, Xid48DoubleBitEccIsCritical) {
  const XidEntry* e = find_xid(48);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->severity, Severity::kCritical);
  EXPECT_STREQ(e->mnemonic, "ROBUST_CHANNEL_GPU_ECC_DBE");
  EXPECT_STREQ(e->immediate_action, "WORKFLOW_XID_48");
}

TEST(XidCatalog, RowRemapEventIsInfoAndFailureIsCritical) {
  const XidEntry* event = find_xid(63);
  const XidEntry* failure = find_xid(64);
  ASSERT_NE(event, nullptr);
  ASSERT_NE(failure, nullptr);
  EXPECT_STREQ(event->mnemonic, "INFOROM_DRAM_RETIREMENT_EVENT");
  EXPECT_EQ(event->severity, Severity::kInfo);
  EXPECT_NE(std::string(event->action_text).find("nvidia-smi -r"), std::string::npos);
  EXPECT_STREQ(failure->mnemonic, "INFOROM_DRAM_RETIREMENT_FAILURE");
  EXPECT_EQ(failure->severity, Severity::kCritical);
  EXPECT_STREQ(failure->immediate_action, "RESET_GPU");
}

TEST(XidCatalog, ApplicationClassXidsAreWarnings) {
  for (int code : {8, 13, 31, 43, 45, 68, 69, 80}) {
    const XidEntry* e = find_xid(code);
    ASSERT_NE(e, nullptr) << code;
    EXPECT_EQ(e->severity, Severity::kWarning) << code;
  }
  EXPECT_STREQ(find_xid(13)->immediate_action, "RESTART_APP");
  EXPECT_STREQ(find_xid(43)->immediate_action, "IGNORE");
}

TEST(XidCatalog, GspXids119And120ResetTheGpu) {
  for (int code : {119, 120}) {
    const XidEntry* e = find_xid(code);
    ASSERT_NE(e, nullptr) << code;
    EXPECT_EQ(e->severity, Severity::kCritical) << code;
    EXPECT_STREQ(e->immediate_action, "RESET_GPU");
  }
  EXPECT_STREQ(find_xid(119)->mnemonic, "GSP_RPC_TIMEOUT");
  EXPECT_STREQ(find_xid(120)->mnemonic, "GSP_ERROR");
}

TEST(XidCatalog, ContainedIsInfoUncontainedIsCritical) {
  ASSERT_NE(find_xid(94), nullptr);
  ASSERT_NE(find_xid(95), nullptr);
  EXPECT_STREQ(find_xid(94)->mnemonic, "ROBUST_CHANNEL_CONTAINED_ERROR");
  EXPECT_EQ(find_xid(94)->severity, Severity::kInfo);
  EXPECT_STREQ(find_xid(94)->immediate_action, "RESTART_APP");
  EXPECT_STREQ(find_xid(95)->mnemonic, "ROBUST_CHANNEL_UNCONTAINED_ERROR");
  EXPECT_EQ(find_xid(95)->severity, Severity::kCritical);
  EXPECT_STREQ(find_xid(95)->immediate_action, "RESET_GPU");
}

TEST(XidCatalog, Xid154FollowsTheAnnouncedRecoveryAction) {
  const XidEntry* e = find_xid(154);
  ASSERT_NE(e, nullptr);
  EXPECT_STREQ(e->mnemonic, "GPU_RECOVERY_ACTION_CHANGED");
  EXPECT_STREQ(e->immediate_action, "XID_154");
  auto action = xid154_recovery_action(
      "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)");
  ASSERT_TRUE(action.has_value());
  EXPECT_EQ(*action, RecoveryAction::kGpuReset);
  EXPECT_EQ(recovery_action_severity(*action), Severity::kCritical);
  EXPECT_EQ(xid154_recovery_action("changed from 0x1 (GPU Reset Required) to 0x2 (OS Reboot)"),
            RecoveryAction::kNodeReboot);
  EXPECT_EQ(recovery_action_severity(RecoveryAction::kNone), Severity::kInfo);
  EXPECT_EQ(xid154_recovery_action("changed from 0x0 (None) to 0x9 (Later)"),
            RecoveryAction::kUnknown);
  EXPECT_EQ(recovery_action_severity(RecoveryAction::kUnknown), Severity::kWarning);
  EXPECT_FALSE(xid154_recovery_action("Ch 00000001").has_value());
}

TEST(XidCatalog, CausedByPreviousXid) {
  EXPECT_EQ(caused_by_xid("Ch 00000001 caused by previous Xid 149"), 149);
  EXPECT_FALSE(caused_by_xid("Ch 00000001").has_value());
}

TEST(XidCatalog, UnknownCodesAreNull) {
  EXPECT_EQ(find_xid(9999), nullptr);
  EXPECT_EQ(find_xid(3), nullptr);
  EXPECT_EQ(find_xid(-1), nullptr);
  EXPECT_EQ(find_sxid(9999), nullptr);
}

TEST(XidCatalog, EveryRowHasTextAndAnAction) {
  for (int code = 0; code < 200; ++code) {
    if (const XidEntry* e = find_xid(code)) {
      EXPECT_EQ(e->code, code);
      EXPECT_NE(std::string(e->description), "") << code;
      EXPECT_NE(std::string(e->action_text), "") << code;
    }
  }
}

TEST(XidCatalog, SxidMinionDlreqIsInfoAndHeartbeatTimeoutIsCritical) {
  const XidEntry* dlreq = find_sxid(22013);
  ASSERT_NE(dlreq, nullptr);
  EXPECT_EQ(dlreq->severity, Severity::kInfo);
  const XidEntry* hb = find_sxid(19084);
  ASSERT_NE(hb, nullptr);
  EXPECT_EQ(hb->severity, Severity::kCritical);
  ASSERT_NE(find_sxid(23017), nullptr);
  EXPECT_EQ(find_sxid(11012)->severity, Severity::kInfo);
  EXPECT_EQ(find_sxid(20012)->severity, Severity::kWarning);
}

// Every layer asks the catalogue, so the classes are the reference's
// "Practical severity grouping" (shared/reference/xid-catalog.md).
TEST(XidCatalog, ClassesFollowTheReferenceGrouping) {
  for (int code : {8, 13, 31, 43, 45, 68, 69, 80})
    EXPECT_EQ(xid_facts(code).cls, XidClass::kApplication) << code;
  for (int code : {74, 144, 147, 150}) EXPECT_EQ(xid_facts(code).cls, XidClass::kFabric) << code;
  EXPECT_EQ(xid_facts(79).cls, XidClass::kGpuGone);
  EXPECT_EQ(xid_facts(154).cls, XidClass::kRecovery);
  for (int code : {48, 63, 64, 92, 94, 95}) EXPECT_EQ(xid_facts(code).cls, XidClass::kMemory);
  for (int code : {93, 156, 162, 163, 164}) EXPECT_EQ(xid_facts(code).cls, XidClass::kInfo);
  for (int code : {46, 62, 119, 143, 151, 9999, -1})
    EXPECT_EQ(xid_facts(code).cls, XidClass::kOther) << code;
  EXPECT_TRUE(is_application_xid(45));
  EXPECT_FALSE(is_application_xid(48));
  EXPECT_STREQ(xid_class_name(XidClass::kGpuGone), "gpu-gone");
}

TEST(XidCatalog, ConsequencesCancellationsAndPayloads) {
  EXPECT_TRUE(xid_facts(43).consequence);
  EXPECT_TRUE(xid_facts(45).consequence);
  EXPECT_FALSE(xid_facts(13).consequence);
  EXPECT_EQ(xid_facts(162).cancels, 163);
  EXPECT_EQ(xid_cancelled_by(163), 162);
  EXPECT_FALSE(xid_cancelled_by(162).has_value());
  EXPECT_EQ(xid_facts(13).payload, XidPayload::kGraphicsException);
  EXPECT_EQ(xid_facts(31).payload, XidPayload::kMmuFault);
  EXPECT_EQ(xid_facts(74).payload, XidPayload::kNvlink);
  EXPECT_EQ(xid_facts(149).payload, XidPayload::kNvlink5);
  EXPECT_EQ(xid_facts(154).payload, XidPayload::kRecoveryAction);
  EXPECT_EQ(xid_facts(48).payload, XidPayload::kNone);
  EXPECT_EQ(xid_facts(63).remap, XidRemap::kPending);
  EXPECT_EQ(xid_facts(64).remap, XidRemap::kFailed);
  EXPECT_TRUE(xid_facts(48).asks_remap_followed);
  EXPECT_EQ(xid_facts(48).remap, XidRemap::kNone);
  EXPECT_EQ(fallen_off_bus_entry().code, 79);
  EXPECT_EQ(xid_finding_id(79), "gpu.xid.79");
}

// Every classified code is in the catalogue (a class for a code we cannot
// describe would be a fact without a row).
TEST(XidCatalog, EveryClassifiedCodeHasARow) {
  for (int code = 0; code < 200; ++code) {
    if (xid_facts(code).cls != XidClass::kOther) {
      EXPECT_NE(find_xid(code), nullptr) << code;
    }
  }
}

}  // namespace xid_catalog_test
}  // namespace gt
