#include "model/forward_compat.h"

#include <gtest/gtest.h>

namespace gt {

TEST(ForwardCompat, BranchesAsNvidiaDesignatesThem) {
  EXPECT_EQ(driver_branch_of("535.261.03"), 535);
  EXPECT_EQ(driver_branch_of("470.82"), 470);
  for (const char* bad : {"", "x535", "535x.1", "-535.1"})
    EXPECT_FALSE(driver_branch_of(bad)) << bad;
  EXPECT_EQ(driver_branch_kind(535), DriverBranchKind::kLongTermSupport);
  EXPECT_EQ(driver_branch_kind(570), DriverBranchKind::kProduction);
  EXPECT_EQ(driver_branch_kind(575), DriverBranchKind::kNewFeature);
  EXPECT_EQ(driver_branch_kind(455), DriverBranchKind::kEvaluation);
  // Not in the sources read: unknown, never guessed.
  EXPECT_FALSE(driver_branch_kind(550));
  EXPECT_FALSE(driver_branch_kind(470));
}

TEST(ForwardCompat, OutcomeFromDeviceBranchAndRelease) {
  using F = ForwardCompat;
  // cuda-compat-12-8 (570.124.06) over R535 on an H100: NVIDIA's documented path.
  EXPECT_EQ(forward_compat_outcome(true, true, "535.261.03"), F::kWorks);
  EXPECT_EQ(forward_compat_outcome(true, true, "580.65.06"), F::kWorks);
  // Not newer: 803 whatever the device or branch.
  EXPECT_EQ(forward_compat_outcome(false, false, "575.57.08"), F::kNotNewer);
  // A GeForce board: 804 on any branch.
  EXPECT_EQ(forward_compat_outcome(false, true, "535.261.03"), F::kNotOnThisDevice);
  EXPECT_EQ(forward_compat_outcome(false, true, "575.57.08"), F::kNotOnThisDevice);
  // A new feature branch is not a supported target, known device or not.
  EXPECT_EQ(forward_compat_outcome(true, true, "575.57.08"), F::kBranchNotSupported);
  EXPECT_EQ(forward_compat_outcome(std::nullopt, true, "530.30.02"), F::kBranchNotSupported);
  // What the sources do not settle stays unknown.
  EXPECT_EQ(forward_compat_outcome(std::nullopt, true, "535.261.03"), F::kDeviceUnknown);
  EXPECT_EQ(forward_compat_outcome(true, true, "550.163.01"), F::kBranchUnknown);
  EXPECT_EQ(forward_compat_outcome(true, true, "unknown"), F::kBranchUnknown);
}

}  // namespace gt
