// Tests of the NVML collector against the mock libnvidia-ml (tests/mock_nvml).
// Each test loads its own copy of the mock library so that each gets a fresh
// instance with its own scenario.
#include "sources/nvml/nvml_collector.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sources/nvml/nvml_test_util.h"

namespace gt {
namespace nvml_collector_test {

namespace fs = std::filesystem;

using MockNvml = testing_nvml::MockNvml;

constexpr const char* kDevice = R"({
  "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%d", "serial": "165492200456%d",
  "pci": {"bus_id": "00000000:1%d:00.0", "device_id": "0x233010DE"},
  "memory": {"total_mib": 81559, "reserved_mib": 512, "used_mib": 1024},
  "utilization": {"gpu": [10, 20, 30], "memory": [5]},
  "temperature_c": 41, "power_draw_mw": 123456, "power_limit_mw": 700000, "pstate": 0,
  "fan_speed_pct": null, "persistence_mode": true, "compute_mode": 0,
  "mig_mode": {"current": 0, "pending": 0}, "ecc_mode": {"current": 1, "pending": 1},
  "ecc_errors": {"volatile_corrected": 1, "volatile_uncorrected": 0,
                 "aggregate_corrected": 7, "aggregate_uncorrected": 0},
  "remapped_rows": {"correctable": 0, "uncorrectable": 1, "pending": true, "failure": false},
  "pcie": {"current_gen": 5, "max_gen": 5, "gpu_max_gen": 5, "current_width": 16,
           "max_width": 16, "replay_counter": 0},
  "clock_event_reasons": "0x1", "clock_event_reasons_supported": "0x1FF",
  "processes": [{"pid": 1000%d, "used_mib": 2048, "type": "compute"},
                {"pid": 2000%d, "used_mib": 4096, "type": "compute"}]
  %s
})";

std::string device(int i, const std::string& extra = "") {
  char buf[4096];
  snprintf(buf, sizeof buf, kDevice, i, i, i, i, i, extra.c_str());
  return buf;
}

std::string scenario(const std::string& devices, const std::string& extra = "") {
  return R"({"driver_version": "550.90.07", "nvml_version": "12.550.90.07",
             "cuda_driver_version": 12040, "latency_ms": {"default": 0},
             "devices": [)" +
         devices + "]" + extra + "}";
}

TEST(NvmlCollector, ParsesProcessRecordsOfEachSize) {
  unsigned char rec[32] = {};
  uint32_t pid = 4242, gi = 0xFFFFFFFF, ci = 3;
  uint64_t mem = 1ull << 30;
  memcpy(rec, &pid, 4);
  memcpy(rec + 8, &mem, 8);
  memcpy(rec + 16, &gi, 4);
  memcpy(rec + 20, &ci, 4);
  GpuProcess v1 = parse_process_record(rec, 16);
  EXPECT_EQ(v1.pid, 4242u);
  EXPECT_EQ(v1.used_memory_bytes, mem);
  EXPECT_FALSE(v1.gpu_instance_id);
  GpuProcess v2 = parse_process_record(rec, 24);
  EXPECT_FALSE(v2.gpu_instance_id);  // 0xFFFFFFFF means "not MIG"
  EXPECT_EQ(v2.compute_instance_id, 3u);
  uint64_t na = NVML_VALUE_NOT_AVAILABLE_ULL;
  memcpy(rec + 8, &na, 8);
  EXPECT_FALSE(parse_process_record(rec, 24).used_memory_bytes);  // WDDM: null, not 0
}

TEST(NvmlCollector, SampleCountAndCudaVersion) {
  EXPECT_EQ(utilization_sample_count(std::chrono::milliseconds(0)), 1);
  EXPECT_EQ(utilization_sample_count(std::chrono::milliseconds(100)), 2);
  EXPECT_EQ(utilization_sample_count(std::chrono::milliseconds(1000)), 6);
  EXPECT_EQ(utilization_sample_count(std::chrono::milliseconds(60000)), 11);
  EXPECT_EQ(format_cuda_version(13010), "13.1");
  EXPECT_EQ(format_cuda_version(12040), "12.4");
}

TEST_F(MockNvml, CollectsEveryFieldAndNullForUnsupported) {
  auto lib = load(scenario(device(0) + "," + device(1)));
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->api().process_record_bytes, 24);
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(100);
  o.timeout = std::chrono::milliseconds(3000);
  int enriched = 0;
  o.enrich_process = [&](GpuProcess& p) {
    ++enriched;
    p.name = "x" + std::to_string(p.pid);
  };
  NvmlCollectOutcome out = collect_nvml(lib, o, snap);
  EXPECT_FALSE(out.abandoned_threads);
  ASSERT_TRUE(snap.nvml.initialized);
  EXPECT_EQ(snap.driver_version, "550.90.07");
  EXPECT_EQ(snap.cuda_driver_version, "12.4");
  ASSERT_EQ(snap.gpus.size(), 2u);
  const GpuState& g = snap.gpus[1];
  EXPECT_EQ(g.status, GpuStatus::kOk);
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.uuid, "GPU-1");
  EXPECT_EQ(g.pci_bus_id, "00000000:11:00.0");
  EXPECT_EQ(g.pci_device_id, 0x233010DEu);
  EXPECT_EQ(g.memory_total_bytes, 81559ull << 20);
  EXPECT_EQ(g.memory_reserved_bytes, 512ull << 20);
  // Baseline plus both live processes; reserved is reported on its own
  // (the mock, like nvml.h, counts it inside v2 "used").
  EXPECT_EQ(g.memory_used_bytes, (1024ull + 2048 + 4096) << 20);
  EXPECT_EQ(*g.memory_free_bytes + *g.memory_used_bytes + *g.memory_reserved_bytes,
            *g.memory_total_bytes);
  ASSERT_TRUE(g.utilization_gpu_pct);
  EXPECT_EQ(g.utilization_gpu_pct->samples, 2);
  EXPECT_EQ(g.temperature_c, 41);
  EXPECT_DOUBLE_EQ(*g.power_draw_w, 123.456);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 700.0);
  EXPECT_FALSE(g.fan_speed_pct);  // null, not 0
  EXPECT_EQ(g.persistence_mode, true);
  EXPECT_EQ(g.compute_mode, "Default");
  EXPECT_EQ(g.mig_mode_current, false);
  EXPECT_EQ(g.ecc.aggregate_corrected, 7u);
  EXPECT_FALSE(g.retired_pages.single_bit);  // absent in the scenario
  EXPECT_EQ(g.remapped_rows.uncorrectable, 1u);
  EXPECT_EQ(g.remapped_rows.pending, true);
  EXPECT_EQ(g.pcie.current_gen, 5u);
  EXPECT_EQ(g.clock_event_reasons, 1u);
  ASSERT_TRUE(g.processes);
  ASSERT_EQ(g.processes->size(), 2u);
  EXPECT_EQ((*g.processes)[0].pid, 10001u);
  EXPECT_EQ((*g.processes)[1].used_memory_bytes, 4096ull << 20);
  EXPECT_EQ((*g.processes)[1].name, "x20001");
  EXPECT_EQ(enriched, 4);
  EXPECT_TRUE(g.errors.empty()) << g.errors.front();
}

TEST_F(MockNvml, BoardPartNumberIsReadAndNullWhereNotSupportedOrEmpty) {
  auto lib = load(scenario(device(0, R"(, "board_part_number": "692-2G520-0200-000")") + "," +
                           device(1) + "," + device(2, R"(, "board_part_number": "")")));
  ASSERT_TRUE(lib);
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(3000);
  collect_nvml(lib, o, snap);
  ASSERT_EQ(snap.gpus.size(), 3u);
  EXPECT_EQ(snap.gpus[0].board_part_number, "692-2G520-0200-000");
  EXPECT_FALSE(snap.gpus[1].board_part_number);  // NOT_SUPPORTED: null
  EXPECT_FALSE(snap.gpus[2].board_part_number);  // "": null, never ""
  EXPECT_TRUE(snap.gpus[1].errors.empty()) << snap.gpus[1].errors.front();
}

TEST_F(MockNvml, HungGpuIsReportedWithItsCallAndOthersInFull) {
  auto lib = load(scenario(
      device(0) + "," + device(1, R"(, "hang_in": "nvmlDeviceGetPowerUsage")") + "," + device(2)));
  ASSERT_TRUE(lib);
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  o.timeout = std::chrono::milliseconds(400);
  auto t0 = std::chrono::steady_clock::now();
  NvmlCollectOutcome out = collect_nvml(lib, o, snap);
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, std::chrono::milliseconds(900));
  EXPECT_TRUE(out.abandoned_threads);
  ASSERT_EQ(snap.gpus.size(), 3u);
  EXPECT_EQ(snap.gpus[1].status, GpuStatus::kUnresponsive);
  EXPECT_EQ(snap.gpus[1].stuck_in_call, "nvmlDeviceGetPowerUsage");
  EXPECT_EQ(snap.gpus[1].name, "NVIDIA H100 80GB HBM3");  // answered before the hang
  EXPECT_EQ(snap.gpus[0].status, GpuStatus::kOk);
  EXPECT_TRUE(snap.gpus[2].processes);
  EXPECT_TRUE(snap.gpus[2].power_draw_w);
}

TEST_F(MockNvml, LostGpuStopsItsQueriesOnly) {
  auto lib = load(scenario(device(0) + "," + device(1, R"(, "lost": true)")));
  ASSERT_TRUE(lib);
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  collect_nvml(lib, o, snap);
  ASSERT_EQ(snap.gpus.size(), 2u);
  EXPECT_EQ(snap.gpus[1].status, GpuStatus::kLost);
  EXPECT_FALSE(snap.gpus[1].memory_total_bytes);
  EXPECT_EQ(snap.gpus[0].status, GpuStatus::kOk);
}

TEST_F(MockNvml, InitFailureIsNamed) {
  auto lib = load(scenario("", R"(, "init": {"error": "LIB_RM_VERSION_MISMATCH"})"));
  ASSERT_TRUE(lib);
  NodeSnapshot snap;
  collect_nvml(lib, NvmlCollectOptions{}, snap);
  EXPECT_FALSE(snap.nvml.initialized);
  EXPECT_EQ(snap.nvml.init_error, NvmlInitError::kVersionMismatch);
  EXPECT_EQ(snap.nvml.init_return_code, 18);
  EXPECT_EQ(snap.nvml.init_return_name, "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  EXPECT_TRUE(snap.gpus.empty());
}

TEST_F(MockNvml, R535LibraryIsReadWith32ByteRecords) {
  auto lib = load(scenario(device(0)), "r535");
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->api().process_record_bytes, 32);
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  collect_nvml(lib, o, snap);
  ASSERT_EQ(snap.gpus.size(), 1u);
  ASSERT_TRUE(snap.gpus[0].processes);
  ASSERT_EQ(snap.gpus[0].processes->size(), 2u);
  EXPECT_EQ((*snap.gpus[0].processes)[1].pid, 20000u);
  EXPECT_EQ((*snap.gpus[0].processes)[1].used_memory_bytes, 4096ull << 20);
}

TEST_F(MockNvml, OldDriverFallsBackToOlderSymbols) {
  auto lib = load(scenario(device(0)), "r470");
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->api().process_record_bytes, 24);
  EXPECT_STREQ(lib->api().compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v2");
  EXPECT_STREQ(lib->api().clock_reasons.symbol, "nvmlDeviceGetCurrentClocksThrottleReasons");
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = std::chrono::milliseconds(0);
  collect_nvml(lib, o, snap);
  ASSERT_EQ(snap.gpus.size(), 1u);
  const GpuState& g = snap.gpus[0];
  EXPECT_EQ(g.memory_total_bytes, 81559ull << 20);
  EXPECT_FALSE(g.memory_reserved_bytes);  // only the v2 call knows it
  EXPECT_EQ(g.temperature_c, 41);
  EXPECT_EQ(g.clock_event_reasons, 1u);
  EXPECT_FALSE(g.pcie.device_max_gen);
  ASSERT_TRUE(g.processes);
  EXPECT_EQ(g.processes->size(), 2u);
}

TEST(NvmlLibraryOpen, MissingLibraryIsNotFoundWithThePath) {
  Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(lib.error().message.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

TEST(NvmlLibraryOpen, LibraryWithoutNvmlSymbolsIsRejected) {
  // libm is a real shared library that exports none of NVML's symbols.
  Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open("libm.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().kind, ErrorKind::kLibraryError);
  EXPECT_NE(lib.error().message.find("nvmlInit_v2"), std::string::npos);
}

TEST(NvmlLibrary, ReturnNamesCoverUnknownCodes) {
  EXPECT_EQ(NvmlLibrary::return_name(15), "NVML_ERROR_GPU_IS_LOST");
  EXPECT_EQ(NvmlLibrary::return_name(999), "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(NvmlLibrary::return_name(77), "NVML_ERROR_77");
}

}  // namespace nvml_collector_test
}  // namespace gt
