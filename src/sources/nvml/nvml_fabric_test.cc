// Fabric registration: decoding, struct version fallbacks, old drivers.
#include "sources/nvml/nvml_fabric.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_fabric_test {

using testing_nvml::bare_device;
/// One suite per file: gtest wants one fixture class per suite name.
class FabricMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

TEST(NvmlFabric, UuidTextAndHealthMaskDecoding) {
  const unsigned char b[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                               0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  EXPECT_EQ(uuid_text(b), "12345678-9abc-def0-0123-456789abcdef");
  FabricRead r;
  r.state = NVML_GPU_FABRIC_STATE_COMPLETED;
  // degraded bw 1 (yes), route recovery 2 (no), route unhealthy 0 (n/s),
  // access timeout 2 (no), incorrect configuration 5 (insufficient NVLinks).
  r.health_mask = 1u | (2u << 2) | (0u << 4) | (2u << 6) | (5u << 8);
  r.health_summary = NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY;
  std::optional<FabricInfo> f = decode_fabric(r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->state, FabricState::kCompleted);
  EXPECT_EQ(f->status, "success");
  EXPECT_FALSE(f->cluster_uuid);  // all zero: not a cluster
  EXPECT_EQ(f->bandwidth_degraded, true);
  EXPECT_EQ(f->route_recovery_in_progress, false);
  EXPECT_FALSE(f->route_unhealthy);
  EXPECT_EQ(f->access_timeout_recovery, false);
  EXPECT_EQ(f->incorrect_configuration, "insufficient_nvlinks");
  EXPECT_EQ(f->health_summary, FabricHealthSummary::kLimitedCapacity);
  r.state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;
  r.status = NVML_ERROR_NOT_READY;
  f = decode_fabric(r);
  EXPECT_FALSE(f->status);  // meaningful only once completed
  r.state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
  EXPECT_FALSE(decode_fabric(r));
  r.state = NVML_GPU_FABRIC_STATE_COMPLETED;
  r.status = NVML_ERROR_INSUFFICIENT_RESOURCES;
  EXPECT_EQ(decode_fabric(r)->status, "NVML_ERROR_INSUFFICIENT_RESOURCES");
}

constexpr const char* kFabric = R"(, "fabric": {"state": "completed", "status": "SUCCESS",
    "clique_id": 32766, "cluster_uuid": "6f1d2c3b-4a59-4e6f-8071-92a3b4c5d6e7",
    "health_mask": "0x1AA", "health_summary": "healthy"%s})";

std::string fabric(const std::string& extra = "") {
  char buf[512];
  snprintf(buf, sizeof buf, kFabric, extra.c_str());
  return buf;
}

TEST_F(FabricMock, FabricV3) {
  NodeSnapshot s = collect(scenario_on(bare_device(fabric())));
  ASSERT_EQ(s.gpus.size(), 1u);
  ASSERT_TRUE(s.gpus[0].fabric);
  const FabricInfo& f = *s.gpus[0].fabric;
  EXPECT_EQ(f.state, FabricState::kCompleted);
  EXPECT_EQ(f.status, "success");
  EXPECT_EQ(f.clique_id, "32766");
  EXPECT_EQ(f.cluster_uuid, "6f1d2c3b-4a59-4e6f-8071-92a3b4c5d6e7");
  EXPECT_EQ(f.health_mask, 0x1AAu);
  EXPECT_EQ(f.bandwidth_degraded, false);
  EXPECT_EQ(f.route_unhealthy, false);
  EXPECT_EQ(f.incorrect_configuration, "none");
  EXPECT_EQ(f.health_summary, FabricHealthSummary::kHealthy);
  EXPECT_TRUE(s.gpus[0].errors.empty());
}

TEST_F(FabricMock, FabricFallsBackToV2WhenV3IsRejected) {
  NodeSnapshot s = collect(scenario_on(bare_device(fabric(R"(, "max_struct_version": 2)"))));
  ASSERT_TRUE(s.gpus[0].fabric);
  EXPECT_EQ(s.gpus[0].fabric->health_mask, 0x1AAu);
  EXPECT_FALSE(s.gpus[0].fabric->health_summary);  // v3 only
  EXPECT_TRUE(s.gpus[0].errors.empty()) << s.gpus[0].errors.front();
}

TEST_F(FabricMock, FabricOnR535UsesTheUnversionedCall) {
  NodeSnapshot s = collect(scenario_on(bare_device(fabric()), "535.54.03"), 0, "r535");
  EXPECT_TRUE(missing("nvmlDeviceGetGpuFabricInfoV"));
  ASSERT_TRUE(s.gpus[0].fabric);
  EXPECT_EQ(s.gpus[0].fabric->clique_id, "32766");
  EXPECT_FALSE(s.gpus[0].fabric->health_mask);  // the 12.0 struct has none
  EXPECT_FALSE(s.gpus[0].fabric->bandwidth_degraded);
}

TEST_F(FabricMock, FabricAbsentOnR470AndOnPcieBoards) {
  NodeSnapshot old = collect(scenario_on(bare_device(fabric()), "470.256.02"), 0, "r470");
  EXPECT_TRUE(missing("nvmlDeviceGetGpuFabricInfoV"));
  EXPECT_TRUE(missing("nvmlDeviceGetGpuFabricInfo"));
  EXPECT_FALSE(old.gpus[0].fabric);
  NodeSnapshot pcie = collect(scenario_on(bare_device()));
  EXPECT_FALSE(pcie.gpus[0].fabric);  // NOT_SUPPORTED
  EXPECT_TRUE(pcie.gpus[0].errors.empty());
  NodeSnapshot ns = collect(scenario_on(bare_device(R"(, "fabric": {"state": 0})")));
  EXPECT_FALSE(ns.gpus[0].fabric);  // state NOT_SUPPORTED
}

TEST_F(FabricMock, HangInFabricCallIsNamed) {
  NodeSnapshot s;
  auto lib =
      load(scenario_on(bare_device(fabric() + R"(, "hang_in": "nvmlDeviceGetGpuFabricInfoV")")));
  ASSERT_TRUE(lib);
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(300);
  collect_nvml(lib, o, s);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].status, GpuStatus::kUnresponsive);
  EXPECT_EQ(s.gpus[0].stuck_in_call, "nvmlDeviceGetGpuFabricInfoV");
}

}  // namespace nvml_fabric_test
}  // namespace gt
