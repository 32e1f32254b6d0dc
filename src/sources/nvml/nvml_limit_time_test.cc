// Limit time shares over the window, field numbering by driver, and the
// reasons mask at every sample.
#include "sources/nvml/nvml_limit_time.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_limit_time_test {

using testing_nvml::bare_device;
/// One suite per file: gtest wants one fixture class per suite name.
class LimitTimeMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

TEST(LimitTime, FieldNumberingByDriverBranch) {
  EXPECT_EQ(reason_time_fields(std::string("580.65.06")), ReasonTimeFields::kR580);
  EXPECT_EQ(reason_time_fields(std::string("575.51.03")), ReasonTimeFields::kR580);
  // 570: 251-268 are power smoothing; 590+: numbering not confirmed.
  EXPECT_EQ(reason_time_fields(std::string("570.133.20")), ReasonTimeFields::kNone);
  EXPECT_EQ(reason_time_fields(std::string("590.48.01")), ReasonTimeFields::kNone);
  EXPECT_EQ(reason_time_fields(std::string("550.90.07")), ReasonTimeFields::kNone);
  EXPECT_EQ(reason_time_fields(std::nullopt), ReasonTimeFields::kNone);
}

TEST(LimitTime, ShareOfTheWindow) {
  LimitCounterRead a{1000, 1'000'000}, b{1000 + 450'000'000, 1'500'000};  // 0.45 s of 0.5 s
  EXPECT_NEAR(*limit_share(a, b), 0.9, 1e-9);
  EXPECT_FALSE(limit_share(b, a));                       // backwards
  EXPECT_FALSE(limit_share(a, a));                       // no time passed
  EXPECT_FALSE(limit_share(a, std::nullopt));            // unreadable at one end
  LimitCounterRead hair{1000 + 510'000'000, 1'500'000};  // 1.02: sampled apart
  EXPECT_EQ(*limit_share(a, hair), 1.0);                 // clamped
  LimitCounterRead over{1000 + 600'000'000, 1'500'000};  // 1.2: not what we take it for
  EXPECT_FALSE(limit_share(a, over));
}

constexpr const char* kBrake = R"(, "limit_time_ns": {
    "sw_power_cap": {"per_s": 2.0e8}, "hw_power_brake": {"base": 5e9, "per_s": 0.9e9},
    "hw_thermal": 0, "reliability": {"base": 1e12, "per_s": -1e11}},
    "clock_event_reasons": "0x80", "utilization": {"gpu": [90, 95]})";

TEST_F(LimitTimeMock, SharesFromCountersGrowingOverTheWindow) {
  NodeSnapshot s = collect(scenario_on(bare_device(kBrake), "580.65.06"), 400);
  ASSERT_EQ(s.gpus.size(), 1u);
  const LimitTime& t = s.gpus[0].limit_time;
  ASSERT_TRUE(t.hw_power_brake_share);
  EXPECT_NEAR(*t.hw_power_brake_share, 0.9, 0.08);
  ASSERT_TRUE(t.sw_power_cap_share);  // GetViolationStatus(POWER)
  EXPECT_NEAR(*t.sw_power_cap_share, 0.2, 0.08);
  EXPECT_EQ(t.hw_thermal_share, 0.0);
  EXPECT_FALSE(t.reliability_share);  // went backwards
  EXPECT_FALSE(t.sync_boost_share);   // unsupported
  // The reasons mask at every utilization sample, the last kept apart.
  EXPECT_EQ(s.gpus[0].clock_event_reasons_samples.size(),
            static_cast<size_t>(utilization_sample_count(std::chrono::milliseconds(400))));
  for (uint64_t m : s.gpus[0].clock_event_reasons_samples) EXPECT_EQ(m, 0x80u);
  EXPECT_EQ(s.gpus[0].clock_event_reasons, 0x80u);
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(LimitTimeMock, HwFieldsAreNotReadOnAnUnconfirmedNumbering) {
  NodeSnapshot s = collect(scenario_on(bare_device(kBrake), "590.48.01"), 200);
  const LimitTime& t = s.gpus[0].limit_time;
  EXPECT_FALSE(t.hw_power_brake_share);
  EXPECT_FALSE(t.hw_thermal_share);
  EXPECT_TRUE(t.sw_power_cap_share);  // the policy call does not depend on it
}

TEST_F(LimitTimeMock, NoWindowNoShare) {
  NodeSnapshot s = collect(scenario_on(bare_device(kBrake), "580.65.06"), 0);
  EXPECT_FALSE(s.gpus[0].limit_time.hw_power_brake_share);
  EXPECT_FALSE(s.gpus[0].limit_time.sw_power_cap_share);
  EXPECT_EQ(s.gpus[0].clock_event_reasons_samples.size(), 1u);
}

TEST_F(LimitTimeMock, HangInViolationStatusIsNamed) {
  NodeSnapshot s;
  auto lib = load(scenario_on(
      bare_device(std::string(kBrake) + R"(, "hang_in": "nvmlDeviceGetViolationStatus")")));
  ASSERT_TRUE(lib);
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(300);
  collect_nvml(lib, o, s);
  EXPECT_EQ(s.gpus[0].stuck_in_call, "nvmlDeviceGetViolationStatus");
}

}  // namespace nvml_limit_time_test
}  // namespace gt
