// Self-test of the mock NVML library: dlopens each built variant with a
// scenario and checks the behaviour the tool relies on. Exit status 0 only
// when every check passed.
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sources/nvml/nvml_types.h"

namespace {

int g_failures = 0;
int g_checks = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    ++g_checks;                                                       \
    if (!(cond)) {                                                    \
      ++g_failures;                                                   \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

#define CHECK_EQ(a, b)                                                                     \
  do {                                                                                     \
    ++g_checks;                                                                            \
    auto va = (a);                                                                         \
    auto vb = (b);                                                                         \
    if (!(va == vb)) {                                                                     \
      ++g_failures;                                                                        \
      fprintf(stderr, "FAIL %s:%d: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, #b, \
              (long long)va, (long long)vb);                                               \
    }                                                                                      \
  } while (0)

constexpr unsigned long long kMiB = 1024ull * 1024ull;

// One dlopen()ed variant; Sym<F>("name") is NULL when not exported.
class Lib {
 public:
  explicit Lib(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) fprintf(stderr, "dlopen %s: %s\n", path.c_str(), dlerror());
  }
  bool ok() const { return handle_ != nullptr; }
  template <typename F>
  F Sym(const char* name) const {
    return handle_ ? reinterpret_cast<F>(dlsym(handle_, name)) : nullptr;
  }
  // Calls an exported function, failing the check (and returning -1) when
  // the symbol is missing.
  template <typename... A>
  int Call(const char* name, A... args) const {
    auto f = Sym<int (*)(A...)>(name);
    if (!f) {
      ++g_failures;
      fprintf(stderr, "FAIL: %s not exported\n", name);
      return -1;
    }
    return f(args...);
  }
  nvmlDevice_t Handle(unsigned i) const {
    nvmlDevice_t d = nullptr;
    CHECK_EQ(Call("nvmlDeviceGetHandleByIndex_v2", i, &d), NVML_SUCCESS);
    return d;
  }

 private:
  void* handle_ = nullptr;
};

std::string Scenario(const char* name) {
  return std::string(MOCK_SCENARIOS_DIR) + "/" + name + "/scenario.json";
}

std::string WriteTemp(const std::string& text) {
  static std::string dir = [] {
    char tmpl[] = "/tmp/mock_nvml_selftest.XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  static int n = 0;
  std::string path = dir + "/s" + std::to_string(n++) + ".json";
  std::ofstream(path) << text;
  return path;
}

// Re-initialises `lib` on `scenario` (full shutdown first so it re-reads).
int Reinit(const Lib& lib, const std::string& scenario) {
  while (lib.Call("nvmlShutdown") == NVML_SUCCESS &&
         lib.Call("nvmlDeviceGetCount_v2", (unsigned*)nullptr) != NVML_ERROR_UNINITIALIZED) {
  }
  setenv("MOCK_NVML_SCENARIO", scenario.c_str(), 1);
  return lib.Call("nvmlInit_v2");
}

void TestHealthy(const Lib& lib) {
  unsigned count = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &count), NVML_ERROR_UNINITIALIZED);
  CHECK_EQ(Reinit(lib, Scenario("healthy-h100x8")), NVML_SUCCESS);
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &count), NVML_SUCCESS);
  CHECK_EQ(count, 8u);
  nvmlDevice_t d = lib.Handle(0);
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  CHECK_EQ(lib.Call("nvmlDeviceGetName", d, name, (unsigned)sizeof(name)), NVML_SUCCESS);
  CHECK(strcmp(name, "NVIDIA H100 80GB HBM3") == 0);
  CHECK_EQ(lib.Call("nvmlDeviceGetName", d, name, 5u), NVML_ERROR_INSUFFICIENT_SIZE);
  nvmlMemory_t m1 = {};
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo", d, &m1), NVML_SUCCESS);
  CHECK_EQ(m1.total, 81559 * kMiB);
  CHECK_EQ(m1.used, 551 * kMiB);  // v1 used includes reserved
  CHECK_EQ(m1.free, m1.total - m1.used);
  nvmlMemory_v2_t m2 = {};
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo_v2", d, &m2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  m2.version = nvmlMemory_v2;
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo_v2", d, &m2), NVML_SUCCESS);
  CHECK_EQ(m2.reserved, 551 * kMiB);
  CHECK_EQ(m2.used, 551 * kMiB);
  nvmlTemperature_v1_t t = {nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0};
  CHECK_EQ(lib.Call("nvmlDeviceGetTemperatureV", d, &t), NVML_SUCCESS);
  CHECK(t.temperature > 15 && t.temperature < 40);
  nvmlPciInfo_t pci = {};
  CHECK_EQ(lib.Call("nvmlDeviceGetPciInfo_v3", d, &pci), NVML_SUCCESS);
  CHECK(strcmp(pci.busId, "00000000:19:00.0") == 0);
  CHECK(strcmp(pci.busIdLegacy, "0000:19:00.0") == 0);
  CHECK_EQ(pci.pciDeviceId, 0x233010DEu);
  unsigned fan = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetFanSpeed", d, &fan), NVML_ERROR_NOT_SUPPORTED);
  // Ref-counted init: two inits need two shutdowns.
  CHECK_EQ(lib.Call("nvmlInit_v2"), NVML_SUCCESS);
  CHECK_EQ(lib.Call("nvmlShutdown"), NVML_SUCCESS);
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &count), NVML_SUCCESS);
  CHECK_EQ(lib.Call("nvmlShutdown"), NVML_SUCCESS);
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &count), NVML_ERROR_UNINITIALIZED);
  CHECK_EQ(lib.Call("nvmlShutdown"), NVML_SUCCESS);
  auto err = lib.Sym<const char* (*)(int)>("nvmlErrorString");
  CHECK(err && strcmp(err(15), "GPU is lost") == 0);
  CHECK(err && strcmp(err(12345), "Unknown Error") == 0);
}

const char* kInjected = R"({
  "driver_version": "590.48.01",
  "devices": [
    {"name": "GPU A", "memory": {"total_mib": 1000, "reserved_mib": 10},
     "utilization": {"gpu": [10, 20, 30], "memory": [5]},
     "temperature_c": 40, "power_draw_mw": 100000,
     "errors": {"nvmlDeviceGetFanSpeed": "NOT_SUPPORTED",
                "nvmlDeviceGetPowerUsage": 999,
                "nvmlDeviceGetTemperature": "TIMEOUT"},
     "processes": [
       {"pid": 111, "used_mib": 100, "type": "compute"},
       {"pid": 222, "used_mib": 200, "type": "compute+graphics",
        "gpu_instance_id": 1, "compute_instance_id": 0},
       {"pid": 333, "used_mib": 300, "type": "graphics"}]},
    {"copy_of": 0, "lost": true},
    {"copy_of": 0, "handle_error": "NO_PERMISSION"},
    {"copy_of": 0, "errors": null, "hang_in": "nvmlDeviceGetPowerUsage"}
  ]})";

void TestProcessesAndInjection(const Lib& lib) {
  CHECK_EQ(Reinit(lib, WriteTemp(kInjected)), NVML_SUCCESS);
  nvmlDevice_t d = lib.Handle(0);
  unsigned v = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetFanSpeed", d, &v), NVML_ERROR_NOT_SUPPORTED);
  CHECK_EQ(lib.Call("nvmlDeviceGetPowerUsage", d, &v), NVML_ERROR_UNKNOWN);
  // Base-name match: the TemperatureV key "nvmlDeviceGetTemperature".
  nvmlTemperature_v1_t t = {nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0};
  CHECK_EQ(lib.Call("nvmlDeviceGetTemperatureV", d, &t), NVML_ERROR_TIMEOUT);

  // INSUFFICIENT_SIZE protocol, then 24-byte (v2/v3) and 16-byte (v1) records.
  unsigned n = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v3", d, &n, (void*)nullptr),
           NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(n, 2u);
  n = 1;
  nvmlProcessInfo_v2_t p2[4];
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v3", d, &n, (void*)p2),
           NVML_ERROR_INSUFFICIENT_SIZE);
  n = 4;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v3", d, &n, (void*)p2), NVML_SUCCESS);
  CHECK_EQ(n, 2u);
  CHECK_EQ(p2[0].pid, 111u);
  CHECK_EQ(p2[0].gpuInstanceId, 0xFFFFFFFFu);
  CHECK_EQ(p2[1].pid, 222u);
  CHECK_EQ(p2[1].usedGpuMemory, 200 * kMiB);
  CHECK_EQ(p2[1].gpuInstanceId, 1u);
  nvmlProcessInfo_v1_t p1[4];
  n = 4;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses", d, &n, (void*)p1), NVML_SUCCESS);
  CHECK_EQ(p1[1].pid, 222u);
  CHECK_EQ(p1[1].usedGpuMemory, 200 * kMiB);
  n = 4;
  CHECK_EQ(lib.Call("nvmlDeviceGetGraphicsRunningProcesses_v2", d, &n, (void*)p2), NVML_SUCCESS);
  CHECK_EQ(n, 2u);
  CHECK_EQ(p2[1].pid, 333u);
  nvmlMemory_t m = {};
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo", d, &m), NVML_SUCCESS);
  CHECK_EQ(m.used, (10 + 100 + 200 + 300) * kMiB);

  // Utilization walks the samples.
  nvmlUtilization_t u = {};
  unsigned seen[4];
  for (unsigned& s : seen) {
    CHECK_EQ(lib.Call("nvmlDeviceGetUtilizationRates", d, &u), NVML_SUCCESS);
    s = u.gpu;
  }
  CHECK(seen[0] == 10 && seen[1] == 20 && seen[2] == 30 && seen[3] == 10);

  // Lost GPU: handle works, every getter GPU_IS_LOST.
  nvmlDevice_t lost = lib.Handle(1);
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo", lost, &m), NVML_ERROR_GPU_IS_LOST);
  nvmlDevice_t h = nullptr;
  CHECK_EQ(lib.Call("nvmlDeviceGetHandleByIndex_v2", 2u, &h), NVML_ERROR_NO_PERMISSION);
  CHECK_EQ(lib.Call("nvmlDeviceGetHandleByIndex_v2", 9u, &h), NVML_ERROR_INVALID_ARGUMENT);

  // Hang: the call never returns, other calls still do.
  nvmlDevice_t hung = lib.Handle(3);
  auto power = lib.Sym<int (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  static std::atomic<bool> returned{false};
  static unsigned sink = 0;
  std::thread([power, hung] {
    power(hung, &sink);
    returned = true;
  }).detach();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(!returned.load());
  CHECK_EQ(lib.Call("nvmlDeviceGetTemperature", hung, 0, &v), NVML_SUCCESS);
  CHECK_EQ(v, 40u);
}

void TestLiveness(const Lib& lib) {
  pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  setenv("MOCK_PID_0", std::to_string(child).c_str(), 1);
  CHECK_EQ(Reinit(lib, WriteTemp(R"({"devices": [{
      "memory": {"total_mib": 1000},
      "processes": [{"pid_env": "MOCK_PID_0", "used_mib": 100},
                    {"pid_env": "MOCK_PID_UNSET", "used_mib": 1}]}]})")),
           NVML_SUCCESS);
  nvmlDevice_t d = lib.Handle(0);
  nvmlMemory_t m = {};
  unsigned n = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo", d, &m), NVML_SUCCESS);
  CHECK_EQ(m.used, 100 * kMiB);
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v2", d, &n, (void*)nullptr),
           NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(n, 1u);
  kill(child, SIGKILL);
  // Not reaped yet: a zombie still answers kill(0) but must count as gone.
  bool released = false;
  for (int i = 0; i < 200 && !released; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    lib.Call("nvmlDeviceGetMemoryInfo", d, &m);
    released = m.used == 0;
  }
  CHECK(released);
  waitpid(child, nullptr, 0);
  n = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v2", d, &n, (void*)nullptr),
           NVML_SUCCESS);
  CHECK_EQ(n, 0u);
  CHECK_EQ(lib.Call("nvmlDeviceGetMemoryInfo", d, &m), NVML_SUCCESS);
  CHECK_EQ(m.used, 0ull);
}

void TestInitFailures(const Lib& lib) {
  CHECK_EQ(Reinit(lib, Scenario("malformed")), NVML_ERROR_UNKNOWN);
  unsigned n = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &n), NVML_ERROR_UNINITIALIZED);
  CHECK_EQ(Reinit(lib, Scenario("driver-not-loaded")), NVML_ERROR_DRIVER_NOT_LOADED);
  CHECK_EQ(Reinit(lib, Scenario("version-mismatch")), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  CHECK_EQ(Reinit(lib, WriteTemp(R"({"devices": [{"memory": "big"}]})")), NVML_ERROR_UNKNOWN);
  CHECK_EQ(Reinit(lib, "/nonexistent/scenario.json"), NVML_ERROR_UNKNOWN);
  unsetenv("MOCK_NVML_SCENARIO");
  CHECK_EQ(lib.Call("nvmlInit_v2"), NVML_ERROR_UNKNOWN);
}

void TestR535(const Lib& lib) {
  CHECK(lib.Sym<void*>("nvmlDeviceGetRunningProcessDetailList") == nullptr);
  CHECK(lib.Sym<void*>("nvmlDeviceGetTemperatureV") == nullptr);
  CHECK(lib.Sym<void*>("nvmlDeviceGetConfComputeMemSizeInfo") != nullptr);
  CHECK_EQ(Reinit(lib, Scenario("r535-records")), NVML_SUCCESS);
  nvmlDevice_t d = lib.Handle(0);
  nvmlProcessInfo_r535_t recs[4];
  memset(recs, 0xAB, sizeof(recs));
  unsigned n = 4;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v3", d, &n, (void*)recs), NVML_SUCCESS);
  CHECK_EQ(n, 3u);
  // 32-byte stride: each record's pid is where a 32-byte reader expects it,
  // the CC field is zero, and the 4th slot is untouched.
  for (unsigned i = 0; i < 3; ++i) {
    CHECK(recs[i].pid > 0 && recs[i].pid < 4194304);
    CHECK(recs[i].usedGpuMemory > 0 && recs[i].usedGpuMemory < 100 * 1024 * kMiB);
    CHECK_EQ(recs[i].usedGpuCcProtectedMemory, 0ull);
  }
  CHECK(recs[0].pid != recs[1].pid && recs[1].pid != recs[2].pid);
  CHECK_EQ(recs[3].pid, 0xABABABABu);
  // Read as 24-byte records the second one is garbage.
  auto* as24 = reinterpret_cast<nvmlProcessInfo_v2_t*>(recs);
  CHECK(as24[1].pid != recs[1].pid);
  // v2 still writes 24 bytes.
  nvmlProcessInfo_v2_t v2[4];
  n = 4;
  CHECK_EQ(lib.Call("nvmlDeviceGetComputeRunningProcesses_v2", d, &n, (void*)v2), NVML_SUCCESS);
  CHECK_EQ(v2[1].pid, recs[1].pid);
}

void TestR470(const Lib& lib) {
  for (const char* s :
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetTemperatureV",
        "nvmlDeviceGetGpuMaxPcieLinkGeneration", "nvmlDeviceGetConfComputeMemSizeInfo",
        "nvmlDeviceGetRunningProcessDetailList"}) {
    if (lib.Sym<void*>(s) != nullptr) {
      ++g_failures;
      fprintf(stderr, "FAIL: r470 exports %s\n", s);
    }
  }
  CHECK(lib.Sym<void*>("nvmlDeviceGetCurrentClocksThrottleReasons"));
  CHECK(lib.Sym<void*>("nvmlDeviceGetComputeRunningProcesses_v2"));
  CHECK_EQ(Reinit(lib, Scenario("old-driver-r470")), NVML_SUCCESS);
  unsigned count = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetCount_v2", &count), NVML_SUCCESS);
  CHECK_EQ(count, 4u);
  nvmlDevice_t d = lib.Handle(0);
  unsigned pages = 0;
  CHECK_EQ(lib.Call("nvmlDeviceGetRetiredPages", d, 0, &pages, (unsigned long long*)nullptr),
           NVML_ERROR_INSUFFICIENT_SIZE);
  CHECK_EQ(pages, 2u);
  unsigned a, b, c, e;
  CHECK_EQ(lib.Call("nvmlDeviceGetRemappedRows", d, &a, &b, &c, &e), NVML_ERROR_NOT_SUPPORTED);
}

}  // namespace

int main() {
  const std::string dir = MOCK_NVML_DIR;
  Lib current(dir + "/libnvidia-ml.so.1");
  Lib r535(dir + "/r535/libnvidia-ml.so.1");
  Lib r470(dir + "/r470/libnvidia-ml.so.1");
  CHECK(current.ok() && r535.ok() && r470.ok());
  if (current.ok()) {
    TestHealthy(current);
    TestInitFailures(current);
    TestProcessesAndInjection(current);
    TestLiveness(current);
  }
  if (r535.ok()) TestR535(r535);
  if (r470.ok()) TestR470(r470);
  printf("mock_nvml_selftest: %d checks, %d failed\n", g_checks, g_failures);
  fflush(stdout);
  // _exit: a deliberately hung thread is still sleeping inside the mock.
  _exit(g_failures == 0 ? 0 : 1);
}
