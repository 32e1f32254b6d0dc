// MIG devices and their processes merged into the parent GPU's list.
#include "sources/nvml/nvml_mig.h"

#include <gtest/gtest.h>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_mig_test {

/// One suite per file: gtest wants one fixture class per suite name.
class MigMock : public testing_nvml::MockNvml {};
using testing_nvml::scenario_on;

GpuProcess proc(uint32_t pid, uint32_t gi, uint32_t ci, const char* type = "compute") {
  GpuProcess p;
  p.pid = pid;
  p.gpu_instance_id = gi;
  p.compute_instance_id = ci;
  p.type = type;
  return p;
}

TEST(MigMerge, OnePerPidAndInstance) {
  std::vector<GpuProcess> into = {proc(10, 1, 0)};
  merge_mig_processes(into, {proc(10, 1, 0), proc(10, 2, 0), proc(11, 1, 0, "graphics"),
                             proc(11, 1, 0, "compute")});
  ASSERT_EQ(into.size(), 3u);
  EXPECT_EQ(into[1].gpu_instance_id, 2u);  // same PID, other instance: kept
  EXPECT_EQ(into[2].type, "graphics+compute");
}

// A100 in MIG mode: slot 0 a 3g.40gb, slot 1 empty, slot 2 a 1g.10gb. The
// parent lists one of the two processes (an unprivileged caller sees fewer).
constexpr const char* kMig = R"({"name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-a",
  "mig_mode": {"current": 1, "pending": 1}, "max_mig_device_count": 7,
  "processes": [{"pid": 7101, "used_mib": 9344, "gpu_instance_id": 1,
                 "compute_instance_id": 0}],
  "mig_devices": [
    {"uuid": "MIG-11111111-2222-3333-4444-555555555555", "name": "NVIDIA A100-SXM4-80GB MIG 3g.40gb",
     "gpu_instance_id": 1, "compute_instance_id": 0,
     "memory": {"total_mib": 40192, "reserved_mib": 0, "used_mib": 13},
     "processes": [{"pid": 7101, "used_mib": 9344, "gpu_instance_id": 1,
                    "compute_instance_id": 0}]},
    null,
    {"uuid": "MIG-66666666-7777-8888-9999-000000000000", "name": "NVIDIA A100-SXM4-80GB MIG 1g.10gb",
     "gpu_instance_id": 9, "compute_instance_id": 0,
     "memory": {"total_mib": 9728, "used_mib": 0},
     "processes": [{"pid": 7102, "used_mib": 4096, "gpu_instance_id": 9,
                    "compute_instance_id": 0}]}]})";

TEST_F(MigMock, MigDevicesAndTheirProcessesOnTheParent) {
  auto lib = load(scenario_on(kMig, "570.133.20"));
  ASSERT_TRUE(lib);
  NodeSnapshot s;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  std::vector<uint32_t> enriched;
  o.enrich_process = [&](GpuProcess& p) { enriched.push_back(p.pid); };
  collect_nvml(lib, o, s);
  ASSERT_EQ(s.gpus.size(), 1u);
  const GpuState& g = s.gpus[0];
  ASSERT_TRUE(g.mig_devices);
  ASSERT_EQ(g.mig_devices->size(), 2u);  // the empty slot is skipped
  const MigDevice& a = (*g.mig_devices)[0];
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(a.gpu_instance_id, 1u);
  EXPECT_EQ(a.compute_instance_id, 0u);
  EXPECT_EQ(a.uuid, "MIG-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(a.name, "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
  EXPECT_EQ(a.memory_total_bytes, 40192ull << 20);
  EXPECT_EQ(a.memory_used_bytes, (13ull + 9344) << 20);
  EXPECT_EQ((*g.mig_devices)[1].index, 2u);
  EXPECT_EQ((*g.mig_devices)[1].gpu_instance_id, 9u);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 2u);  // 7101 once, 7102 from its instance
  EXPECT_EQ((*g.processes)[1].pid, 7102u);
  EXPECT_EQ((*g.processes)[1].gpu_instance_id, 9u);
  EXPECT_EQ((*g.processes)[1].compute_instance_id, 0u);
  EXPECT_EQ(enriched, (std::vector<uint32_t>{7101, 7102}));
  EXPECT_TRUE(g.errors.empty()) << g.errors.front();
}

TEST_F(MigMock, NoMigModeNoMigDevices) {
  NodeSnapshot s = collect(scenario_on(R"({"name": "x", "mig_mode": {"current": 0, "pending": 0},
                                           "mig_devices": []})"));
  EXPECT_FALSE(s.gpus[0].mig_devices);
}

TEST_F(MigMock, HangInMigEnumerationIsNamed) {
  std::string dev = kMig;
  dev.insert(1, R"("hang_in": "nvmlDeviceGetMigDeviceHandleByIndex", )");
  NodeSnapshot s;
  auto lib = load(scenario_on(dev));
  ASSERT_TRUE(lib);
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(300);
  collect_nvml(lib, o, s);
  EXPECT_EQ(s.gpus[0].stuck_in_call, "nvmlDeviceGetMigDeviceHandleByIndex");
}

// One memory reader for a GPU and its MIG devices (read_memory): a _v2
// error still asks v1 for the whole GPU; a MIG device asks v1 only when the
// driver lacks _v2 (NOT_SUPPORTED), never after a real error.
TEST_F(MigMock, MemoryFallsBackToV1ForTheGpuAndForAMigDeviceOnlyWhenAbsent) {
  NodeSnapshot s = collect(scenario_on(R"({"name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-a",
    "memory": {"total_mib": 81920, "used_mib": 100},
    "errors": {"nvmlDeviceGetMemoryInfo_v2": "UNKNOWN"},
    "mig_mode": {"current": 1, "pending": 1}, "max_mig_device_count": 2,
    "mig_devices": [
      {"uuid": "MIG-a", "name": "3g.40gb", "gpu_instance_id": 1, "compute_instance_id": 0,
       "memory": {"total_mib": 40192, "used_mib": 13},
       "errors": {"nvmlDeviceGetMemoryInfo_v2": "UNKNOWN"}},
      {"uuid": "MIG-b", "name": "1g.10gb", "gpu_instance_id": 9, "compute_instance_id": 0,
       "memory": {"total_mib": 9728, "used_mib": 0},
       "errors": {"nvmlDeviceGetMemoryInfo_v2": "NOT_SUPPORTED"}}]})"));
  ASSERT_EQ(s.gpus.size(), 1u);
  const GpuState& g = s.gpus[0];
  EXPECT_EQ(g.memory_total_bytes, 81920ull << 20);  // v1 after the v2 error
  EXPECT_FALSE(g.memory_reserved_bytes);            // v1 has no reserved
  ASSERT_TRUE(g.mig_devices);
  ASSERT_EQ(g.mig_devices->size(), 2u);
  EXPECT_FALSE((*g.mig_devices)[0].memory_total_bytes);  // a real error: not asked again
  EXPECT_EQ((*g.mig_devices)[1].memory_total_bytes, 9728ull << 20);  // absent: v1
  EXPECT_FALSE((*g.mig_devices)[1].memory_reserved_bytes);
}

}  // namespace nvml_mig_test
}  // namespace gt
