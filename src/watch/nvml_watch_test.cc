// watch's use of NVML against the mock: a stuck GPU is not asked again, the
// mock's timeline changes a device over time, and event sets deliver Xids.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <thread>

#include "sources/nvml/nvml_test_util.h"
#include "watch/nvml_events.h"

namespace gt {
namespace nvml_watch_test {

using MockNvml = testing_nvml::MockNvml;
using std::chrono::milliseconds;

std::string gpu(int i, const std::string& extra = "") {
  return R"({"name": "NVIDIA H100 80GB HBM3", "pci": {"bus_id": "00000000:1)" + std::to_string(i) +
         R"(:00.0"}, "utilization": {"gpu": [10]}, "power_draw_mw": 100000)" + extra + "}";
}

std::string scenario(const std::string& devices) {
  return R"({"driver_version": "570.133.20", "latency_ms": {"default": 0}, "devices": [)" +
         devices + "]}";
}

NodeSnapshot collect_once(std::shared_ptr<NvmlLibrary> lib, NvmlCollectOutcome* out = nullptr,
                          std::map<unsigned, std::string> skip = {}) {
  NodeSnapshot snap;
  NvmlCollectOptions o;
  o.sample_window = milliseconds(0);
  o.timeout = milliseconds(300);
  o.skip_gpus = std::move(skip);
  NvmlCollectOutcome r = collect_nvml(lib, o, snap);
  if (out) *out = r;
  return snap;
}

TEST_F(MockNvml, StuckGpuHasAProbeAndIsSkippedWhenAsked) {
  auto lib = load(scenario(gpu(0) + "," + gpu(1, R"(, "hang_in": "nvmlDeviceGetPowerUsage")")));
  ASSERT_TRUE(lib);
  NvmlCollectOutcome out;
  collect_once(lib, &out);
  ASSERT_EQ(out.gpu_returned.count(1), 1u);
  EXPECT_EQ(out.gpu_returned.count(0), 0u);
  EXPECT_FALSE(out.gpu_returned[1]()) << "still inside the mock's hang";
  NvmlCollectOutcome again;
  auto t0 = std::chrono::steady_clock::now();
  NodeSnapshot snap = collect_once(lib, &again, {{1, "still stuck in nvmlDeviceGetPowerUsage"}});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(250)) << "nothing to wait for";
  EXPECT_FALSE(again.abandoned_threads) << "no new thread stranded";
  ASSERT_EQ(snap.gpus.size(), 2u);
  EXPECT_EQ(snap.gpus[1].status, GpuStatus::kUnresponsive);
  EXPECT_EQ(snap.gpus[1].status_detail, "still stuck in nvmlDeviceGetPowerUsage");
  EXPECT_EQ(snap.gpus[0].status, GpuStatus::kOk);
}

TEST_F(MockNvml, TimelineChangesADeviceFromItsTimeOn) {
  auto lib = load(scenario(gpu(0, R"(, "timeline": [
      {"at_s": 0.3, "set": {"utilization": {"gpu": [90]}}},
      {"at_s": 0.6, "set": {"hang_in": "nvmlDeviceGetPowerUsage"}}])")));
  ASSERT_TRUE(lib);
  NodeSnapshot before = collect_once(lib);
  ASSERT_TRUE(before.gpus.at(0).utilization_gpu_pct);
  EXPECT_EQ(before.gpus[0].utilization_gpu_pct->mean, 10);
  std::this_thread::sleep_for(milliseconds(350));
  NodeSnapshot ramped = collect_once(lib);
  EXPECT_EQ(ramped.gpus.at(0).utilization_gpu_pct->mean, 90);
  std::this_thread::sleep_for(milliseconds(300));
  NodeSnapshot hung = collect_once(lib);
  EXPECT_EQ(hung.gpus.at(0).status, GpuStatus::kUnresponsive);
}

TEST_F(MockNvml, EventSetDeliversEachXidOnceWithItsGpu) {
  auto lib =
      load(scenario(gpu(0) + "," + gpu(1, R"(, "events": [{"at_s": 0.2, "type": "xid", "data": 79},
                                                  {"at_s": 0.3, "type": "ecc_double"}])")));
  ASSERT_TRUE(lib);
  NodeSnapshot snap = collect_once(lib);
  NvmlEventWatcher w(lib);
  w.start(snap);
  ASSERT_TRUE(w.started());
  std::vector<Change> got;
  for (int i = 0; i < 40 && got.size() < 2; ++i) {
    std::this_thread::sleep_for(milliseconds(50));
    for (Change& c : w.drain(0)) got.push_back(c);
  }
  EXPECT_TRUE(w.supported());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].id, "gpu.xid.79");
  EXPECT_EQ(got[0].gpu_index, 1u);
  EXPECT_EQ(got[0].severity, Severity::kCritical);
  EXPECT_EQ(got[1].id, "ecc.double_bit_event");
}

TEST_F(MockNvml, NoEventSupportSaysWhy) {
  auto lib = load(scenario(gpu(0, R"(, "errors": {"nvmlDeviceRegisterEvents": "NOT_SUPPORTED"})")));
  ASSERT_TRUE(lib);
  NvmlEventWatcher w(lib);
  w.start(collect_once(lib));
  for (int i = 0; i < 40 && !w.settled(); ++i) std::this_thread::sleep_for(milliseconds(25));
  EXPECT_TRUE(w.settled());
  EXPECT_FALSE(w.supported());
  EXPECT_EQ(w.why_not(),
            "NVML events not supported here (nvmlDeviceRegisterEvents: NVML_ERROR_NOT_SUPPORTED)");
}

/// This thread's CPU time (user and system), in seconds.
double thread_cpu_s() {
  struct rusage ru {};
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Every wait returns GPU_IS_LOST at once (as on a node whose GPU fell off
// the bus): over ten minutes of a fake clock the loop waits between tries
// instead of spinning. (Before: a million tries at fake time 0, and the
// CPU time they cost.)
TEST_F(MockNvml, WaitsThatFailAtOnceAreTriedWithABackoffNotASpin) {
  auto lib = load(R"({"driver_version": "570.133.20", "latency_ms": {"default": 0},
      "errors": {"nvmlEventSetWait_v2": "GPU_IS_LOST"}, "devices": [)" +
                  gpu(0) + "]}");
  ASSERT_TRUE(lib);
  NodeSnapshot snap = collect_once(lib);
  NvmlEventWatcher w(lib);
  int64_t fake_ms = 0;
  uint64_t waits = 0;
  std::vector<int64_t> pauses_ms;
  EventPacer pacer;
  pacer.sleep = [&](milliseconds ms) {
    fake_ms += ms.count();
    pauses_ms.push_back(ms.count());
  };
  pacer.go_on = [&] { return fake_ms < 10 * 60 * 1000 && ++waits <= 1000000; };
  const double cpu0 = thread_cpu_s();
  w.run_here(snap, pacer);
  const double cpu_s = thread_cpu_s() - cpu0;
  EXPECT_GE(fake_ms, 10 * 60 * 1000) << "the loop never waited: " << waits << " tries at once";
  EXPECT_LE(waits, 40u);
  EXPECT_LT(cpu_s, 0.05) << "CPU time of the loop, s";
  ASSERT_GE(pauses_ms.size(), 8u);
  EXPECT_EQ(pauses_ms[0], NvmlEventWatcher::kLostBackoffMs);
  EXPECT_EQ(pauses_ms[1], 2 * NvmlEventWatcher::kLostBackoffMs);
  EXPECT_EQ(pauses_ms.back(), NvmlEventWatcher::kMaxLostBackoffMs);
  EXPECT_TRUE(w.supported()) << "the GPU is still registered: " << w.why_not();
}

// GPU 1 falls off the bus after registration: the set is made again
// without it, and GPU 0's Xid still arrives. (Before: GPU_IS_LOST at once
// forever, and the Xid never came.)
TEST_F(MockNvml, ALostGpuIsLeftOutAndTheOthersEventsStillCome) {
  auto lib =
      load(scenario(gpu(0, R"(, "events": [{"at_s": 0.5, "type": "xid", "data": 79}])") + "," +
                    gpu(1, R"(, "timeline": [{"at_s": 0.2, "set": {"lost": true}}])")));
  ASSERT_TRUE(lib);
  NodeSnapshot snap = collect_once(lib);
  ASSERT_EQ(snap.gpus.at(1).status, GpuStatus::kOk) << "lost only later";
  NvmlEventWatcher w(lib);
  uint64_t waits = 0;
  std::vector<Change> got;
  EventPacer pacer;
  pacer.wait_timeout_ms = 50;
  pacer.sleep = [](milliseconds) {};
  pacer.go_on = [&] {
    for (Change& c : w.drain(0)) got.push_back(c);
    return got.empty() && ++waits <= 10000;
  };
  w.run_here(snap, pacer);
  ASSERT_EQ(got.size(), 1u) << waits << " waits";
  EXPECT_EQ(got[0].id, "gpu.xid.79");
  EXPECT_EQ(got[0].gpu_index, 0u);
  EXPECT_LT(waits, 200u) << "about one wait per 50 ms, no spin";
  EXPECT_TRUE(w.supported());
}

}  // namespace nvml_watch_test
}  // namespace gt
