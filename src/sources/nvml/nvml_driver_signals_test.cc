// Recovery action, row remapper histogram and thermal limits.
#include "sources/nvml/nvml_driver_signals.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_driver_signals_test {

using testing_nvml::bare_device;
/// One suite per file: gtest wants one fixture class per suite name.
class SignalsMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

// NVML's numbers -> RecoveryAction: model/driver_recovery_test.cc.
TEST(RecoveryAction, DeprecatedResetFlagsAreZeroOrOne) {
  EXPECT_EQ(reset_status_flag(0), false);
  EXPECT_EQ(reset_status_flag(1), true);
  EXPECT_FALSE(reset_status_flag(2));
}

TEST_F(SignalsMock, RecoveryActionFromField230) {
  NodeSnapshot s = collect(scenario_on(bare_device(R"(, "recovery_action": 2)") + "," +
                                       bare_device(R"(, "recovery_action": 5)")));
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].recovery.action, RecoveryAction::kNodeReboot);
  EXPECT_EQ(s.gpus[0].recovery.action_code, 2u);
  EXPECT_FALSE(s.gpus[0].recovery.reset_required);  // 226 not read when 230 answers
  EXPECT_EQ(s.gpus[1].recovery.action, RecoveryAction::kUnknown);
  EXPECT_EQ(s.gpus[1].recovery.action_code, 5u);
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(SignalsMock, DeprecatedResetStatusOnlyWhen230IsAbsent) {
  NodeSnapshot s = collect(
      scenario_on(bare_device(R"(, "fields": {"230": "NOT_SUPPORTED", "226": 1, "227": 0})") + "," +
                  bare_device(R"(, "fields": {"226": 7, "227": 1})")));
  ASSERT_EQ(s.gpus.size(), 2u);
  const RecoveryState& r = s.gpus[0].recovery;
  EXPECT_FALSE(r.action);
  EXPECT_FALSE(r.action_code);
  EXPECT_EQ(r.reset_required, true);
  EXPECT_EQ(r.drain_and_reset_recommended, false);
  EXPECT_TRUE(s.gpus[0].errors.empty());
  // An undocumented value is unknown, with a note, never a guess.
  EXPECT_FALSE(s.gpus[1].recovery.reset_required);
  EXPECT_EQ(s.gpus[1].recovery.drain_and_reset_recommended, true);
  ASSERT_EQ(s.gpus[1].errors.size(), 1u);
  EXPECT_NE(s.gpus[1].errors[0].find("field 226): value 7"), std::string::npos);
}

TEST_F(SignalsMock, OldDriverWithoutTheFieldsLeavesRecoveryNullSilently) {
  // r535's NVML knows no field past 196: 226/227/230 answer INVALID_ARGUMENT.
  NodeSnapshot s =
      collect(scenario_on(bare_device(R"(, "recovery_action": 0)"), "535.54.03"), 0, "r535");
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_FALSE(s.gpus[0].recovery.action);
  EXPECT_FALSE(s.gpus[0].recovery.reset_required);
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(SignalsMock, RowRemapperHistogramAndItsAbsence) {
  NodeSnapshot s = collect(scenario_on(
      bare_device(
          R"(, "row_remapper_histogram": {"max": 630, "high": 8, "partial": 1, "low": 0, "none": 1})") +
      "," + bare_device()));
  ASSERT_EQ(s.gpus.size(), 2u);
  ASSERT_TRUE(s.gpus[0].row_remapper_histogram);
  EXPECT_EQ(s.gpus[0].row_remapper_histogram->max, 630u);
  EXPECT_EQ(s.gpus[0].row_remapper_histogram->partial, 1u);
  EXPECT_EQ(s.gpus[0].row_remapper_histogram->none, 1u);
  EXPECT_FALSE(s.gpus[1].row_remapper_histogram);
  EXPECT_TRUE(s.gpus[1].errors.empty());
}

TEST_F(SignalsMock, ThermalThresholdsMarginAndMemoryTemperature) {
  NodeSnapshot s = collect(scenario_on(bare_device(
      R"(, "temperature_thresholds_c": {"shutdown": 92, "slowdown": 89, "memory_max": 95,
                                        "gpu_max": 87},
         "margin_temperature_c": 44, "memory_temperature_c": 38)")));
  ASSERT_EQ(s.gpus.size(), 1u);
  const ThermalState& t = s.gpus[0].thermal;
  EXPECT_EQ(t.shutdown_threshold_c, 92);
  EXPECT_EQ(t.slowdown_threshold_c, 89);
  EXPECT_EQ(t.memory_max_threshold_c, 95);
  EXPECT_EQ(t.gpu_max_threshold_c, 87);
  EXPECT_EQ(t.memory_temperature_c, 38);
  EXPECT_EQ(t.slowdown_margin_c, 44);  // the driver's margin, not 89 - 41
}

TEST_F(SignalsMock, MarginFallsBackToSlowdownMinusTemperatureOnOldDriver) {
  NodeSnapshot s =
      collect(scenario_on(bare_device(R"(, "temperature_thresholds_c": {"slowdown": 89},
                                   "margin_temperature_c": 44)"),
                          "535.54.03"),
              0, "r535");
  EXPECT_TRUE(missing("nvmlDeviceGetMarginTemperature"));
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].thermal.slowdown_margin_c, 89 - 41);
  EXPECT_FALSE(s.gpus[0].thermal.shutdown_threshold_c);  // unsupported: null, no error
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(SignalsMock, AdaStyleUnsupportedThresholdsStayNull) {
  NodeSnapshot s = collect(scenario_on(bare_device()));
  ASSERT_EQ(s.gpus.size(), 1u);
  const ThermalState& t = s.gpus[0].thermal;
  EXPECT_FALSE(t.slowdown_threshold_c);
  EXPECT_FALSE(t.slowdown_margin_c);
  EXPECT_FALSE(t.memory_temperature_c);
  EXPECT_TRUE(s.gpus[0].errors.empty());
}

}  // namespace nvml_driver_signals_test
}  // namespace gt
