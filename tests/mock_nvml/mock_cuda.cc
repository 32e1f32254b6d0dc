// Mock libcuda.so.1 for `gpu-triage cuda`'s tests, driven by the same
// scenario file as the mock NVML ($MOCK_NVML_SCENARIO): its GPUs are the
// scenario's "devices" (bus id, UUID, name, memory), and its "cuda" block
// says what CUDA does on them:
//   "cuda": {
//     "library_version": "565.57.01",  (the file name scripts/with-mock gives it)
//     "driver_version": 12080,         (cuDriverGetVersion; default 12080)
//     "init_error": 803,               (cuInit on every GPU)
//     "compat": true,                  (a forward-compatibility libcuda)
//     "backing_mib": 256,              (larger allocations: out of memory)
//     "peer_denied": [[2, 5]],         (device indices whose peer access is off)
//     "devices": {"3": {               (by the scenario's device index)
//        "error": {"step": "cuCtxCreate", "code": 999},
//        "hang_at": "cuCtxCreate",     (never returns)
//        "crash_at": "cuLaunchKernel", (the process dies by SIGSEGV)
//        "latency_ms": {"cuCtxCreate": 200},
//        "h2d_gb_per_s": 3.9, "d2h_gb_per_s": 3.9,  (default: 80% of its link)
//        "corrupt_readback": true      (bit 4 of the word at byte 4096 reads flipped)
//     }}}
// NVIDIA's rule R2 (docs/physics.md) holds whatever "init_error" says: a
// libcuda whose library_version is not the scenario's module_version fails
// cuInit with 803, unless it is a forward-compatibility library of a newer
// branch, which works on data-center GPUs and fails with 804 on GeForce,
// TITAN, RTX and Quadro boards ("physics_exempt" with "R2" lifts it).
// CUDA's ordinals are the scenario's order reversed (as CUDA's order and
// NVML's differ on real nodes), filtered by CUDA_VISIBLE_DEVICES (UUIDs).
// Device memory is host memory; copies sleep to the configured rate; the
// kernel gt_fill is emulated (sources/cuda_driver/cuda_child.h's values).
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sources/cuda_driver/cuda_child.h"
#include "sources/cuda_driver/cuda_types.h"

namespace {

using json = nlohmann::json;

struct Dev {
  int index = 0;  // in the scenario
  std::string bus_id, uuid, name;
  uint64_t total = 0, used = 0;
  json cuda = json::object();  // its entry in cuda.devices
  double link_gb_per_s = 12.0;
};

struct State {
  json cuda = json::object();
  std::string module_version;  // the scenario's loaded kernel module
  bool r2_exempt = false;
  bool all_forward_compat = true;  // every GPU a data-center board
  std::vector<Dev> devs;           // in CUDA's order, visible ones only
  bool inited = false;
  bool loaded = false;
};

State& state() {
  static State* s = new State();  // never freed: a child may be killed anywhere
  return *s;
}

std::string norm_bus(std::string b) {
  for (char& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t colon = b.find(':');
  if (colon != std::string::npos && b.find(':', colon + 1) != std::string::npos) {
    std::string dom = b.substr(0, colon);
    dom = dom.size() > 4 ? dom.substr(dom.size() - 4) : std::string(4 - dom.size(), '0') + dom;
    b = dom + b.substr(colon);
  } else {
    b = "0000:" + b;
  }
  return b;
}

double lane_gb(int gen) {
  static const double kLane[] = {0, 0.25, 0.5, 0.9846, 1.9692, 3.9385, 7.5625};
  return gen > 0 && gen <= 6 ? kLane[gen] : 0.9846;
}

void load() {
  State& s = state();
  if (s.loaded) return;
  s.loaded = true;
  const char* path = getenv("MOCK_NVML_SCENARIO");
  if (!path || !*path) {
    fprintf(stderr, "mock-cuda: MOCK_NVML_SCENARIO is not set\n");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json root;
  try {
    root = json::parse(text.str());
  } catch (const std::exception& e) {
    fprintf(stderr, "mock-cuda: %s: %s\n", path, e.what());
    return;
  }
  if (!root.is_object()) return;
  if (root.contains("cuda") && root["cuda"].is_object()) s.cuda = root["cuda"];
  if (root.contains("module_version") && root["module_version"].is_string())
    s.module_version = root["module_version"];
  if (root.contains("physics_exempt") && root["physics_exempt"].is_object())
    s.r2_exempt = root["physics_exempt"].contains("R2") || root["physics_exempt"].contains("*");
  std::vector<Dev> all;
  const json devices = root.value("devices", json::array());
  for (size_t i = 0; devices.is_array() && i < devices.size(); ++i) {
    const json& d = devices[i];
    if (!d.is_object()) continue;
    Dev v;
    v.index = static_cast<int>(i);
    if (d.contains("pci") && d["pci"].is_object()) v.bus_id = d["pci"].value("bus_id", "");
    v.uuid = d.value("uuid", "");
    if (d.contains("name") && d["name"].is_string()) v.name = d["name"];
    for (const char* board : {"GeForce", "TITAN", "RTX", "Quadro"})
      if (v.name.find(board) != std::string::npos) s.all_forward_compat = false;
    if (d.contains("memory") && d["memory"].is_object()) {
      v.total = d["memory"].value("total_mib", 0ull) << 20;
      v.used = d["memory"].value("used_mib", 0ull) << 20;
    }
    if (d.contains("pcie") && d["pcie"].is_object()) {
      int gen = d["pcie"].value("max_gen", 3);
      int width = d["pcie"].value("max_width", 16);
      v.link_gb_per_s = 0.8 * lane_gb(gen) * width;
    }
    json per = s.cuda.value("devices", json::object());
    if (per.is_object() && per.contains(std::to_string(i))) v.cuda = per[std::to_string(i)];
    if (!v.bus_id.empty()) all.push_back(v);
  }
  std::reverse(all.begin(), all.end());
  const char* visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) {
    s.devs = all;
    return;
  }
  // Filtered, never reordered: CUDA's order stays the mock's own.
  const std::string list = "," + std::string(visible) + ",";
  for (const Dev& d : all)
    if (!d.uuid.empty() && list.find("," + d.uuid + ",") != std::string::npos) s.devs.push_back(d);
}

void sleep_ms(double ms) {
  if (ms > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(ms * 1000)));
}

/// The behaviour of `step` on `dev` (nullptr: the node): latency, a hang,
/// an error code to return (0: none).
CUresult behave(const Dev* dev, const char* step) {
  State& s = state();
  auto apply = [&](const json& j) -> CUresult {
    if (!j.is_object()) return 0;
    if (j.contains("latency_ms") && j["latency_ms"].is_object())
      sleep_ms(j["latency_ms"].value(step, 0.0));
    if (j.value("hang_at", "") == step)
      for (;;) pause();
    if (j.value("crash_at", "") == step) raise(SIGSEGV);
    if (j.contains("error") && j["error"].is_object() && j["error"].value("step", "") == step)
      return j["error"].value("code", 999);
    return 0;
  };
  CUresult r = apply(s.cuda);
  if (r != 0 || dev == nullptr) return r;
  return apply(dev->cuda);
}

struct Ctx {
  int dev = 0;  // index into state().devs
};
thread_local Ctx* g_current = nullptr;

const Dev* current() {
  State& s = state();
  if (g_current == nullptr || g_current->dev >= static_cast<int>(s.devs.size())) return nullptr;
  return &s.devs[static_cast<size_t>(g_current->dev)];
}

void pace(double gb_per_s, size_t bytes, std::chrono::steady_clock::time_point t0) {
  if (gb_per_s <= 0) return;
  double want_ms = bytes / (gb_per_s * 1e9) * 1000;
  double took =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  sleep_ms(want_ms - took);
}

struct Module {
  std::string text;
};
struct Function {
  std::string name;
};

const std::map<int, std::pair<const char*, const char*>>& names() {
  static const auto* m = new std::map<int, std::pair<const char*, const char*>>{
      {0, {"CUDA_SUCCESS", "no error"}},
      {1, {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}},
      {2, {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"}},
      {3, {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"}},
      {100, {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"}},
      {101, {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"}},
      {201, {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"}},
      {218, {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"}},
      {500, {"CUDA_ERROR_NOT_FOUND", "named symbol not found"}},
      {719, {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"}},
      {802, {"CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"}},
      {803,
       {"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        "system has unsupported display driver / cuda driver combination"}},
      {804,
       {"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        "forward compatibility was attempted on non supported HW"}},
      {999, {"CUDA_ERROR_UNKNOWN", "unknown error"}},
  };
  return *m;
}

}  // namespace

#define MOCK_API extern "C" __attribute__((visibility("default"))) CUresult

MOCK_API cuGetErrorName(CUresult e, const char** out) {
  auto it = names().find(e);
  if (it == names().end()) return 1;
  *out = it->second.first;
  return 0;
}

MOCK_API cuGetErrorString(CUresult e, const char** out) {
  auto it = names().find(e);
  if (it == names().end()) return 1;
  *out = it->second.second;
  return 0;
}

MOCK_API cuDriverGetVersion(int* v) {
  load();
  if (v == nullptr) return 1;
  *v = state().cuda.value("driver_version", 12080);
  return 0;
}

namespace {

/// The branch of a release: 590 of "590.48.01"; 0 when it does not parse.
int branch_of(const std::string& release) { return std::atoi(release.c_str()); }

/// R2: what cuInit returns for this library under the scenario's module.
CUresult release_rule(const State& s) {
  const std::string lib = s.cuda.value("library_version", "");
  if (s.r2_exempt || lib.empty() || s.module_version.empty() || lib == s.module_version) return 0;
  const bool compat = s.cuda.value("compat", false);
  if (compat && branch_of(lib) > branch_of(s.module_version)) return s.all_forward_compat ? 0 : 804;
  return 803;
}

}  // namespace

MOCK_API cuInit(unsigned int flags) {
  load();
  State& s = state();
  if (flags != 0) return 1;
  if (CUresult r = release_rule(s)) return r;
  if (CUresult r = state().cuda.value("init_error", 0)) return r;
  // The driver brings its GPUs up side by side: the slowest one's latency,
  // then each one's hang or error.
  double slowest = 0;
  for (const Dev& d : s.devs)
    if (d.cuda.is_object() && d.cuda.contains("latency_ms") && d.cuda["latency_ms"].is_object())
      slowest = std::max(slowest, d.cuda["latency_ms"].value("cuInit", 0.0));
  sleep_ms(slowest);
  for (const Dev& d : s.devs) {
    Dev quick = d;
    if (quick.cuda.is_object()) quick.cuda.erase("latency_ms");
    if (CUresult r = behave(&quick, "cuInit")) return r;
  }
  if (s.devs.empty()) return 100;
  s.inited = true;
  return 0;
}

MOCK_API cuDeviceGetCount(int* n) {
  if (!state().inited) return 3;
  *n = static_cast<int>(state().devs.size());
  return 0;
}

MOCK_API cuDeviceGetByPCIBusId(CUdevice* dev, const char* bus) {
  State& s = state();
  if (!s.inited) return 3;
  if (dev == nullptr || bus == nullptr) return 1;
  for (size_t i = 0; i < s.devs.size(); ++i)
    if (norm_bus(s.devs[i].bus_id) == norm_bus(bus)) {
      if (CUresult r = behave(&s.devs[i], "cuDeviceGetByPCIBusId")) return r;
      *dev = static_cast<CUdevice>(i);
      return 0;
    }
  return 101;
}

MOCK_API cuDeviceGetPCIBusId(char* out, int len, CUdevice dev) {
  State& s = state();
  if (!s.inited) return 3;
  if (dev < 0 || dev >= static_cast<int>(s.devs.size()) || out == nullptr || len <= 0) return 101;
  snprintf(out, static_cast<size_t>(len), "%s",
           norm_bus(s.devs[static_cast<size_t>(dev)].bus_id).c_str());
  return 0;
}

MOCK_API cuDeviceGetName(char* out, int len, CUdevice dev) {
  State& s = state();
  if (!s.inited) return 3;
  if (dev < 0 || dev >= static_cast<int>(s.devs.size()) || out == nullptr || len <= 0) return 101;
  snprintf(out, static_cast<size_t>(len), "%s", s.devs[static_cast<size_t>(dev)].name.c_str());
  return 0;
}

MOCK_API cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  State& s = state();
  if (!s.inited) return 3;
  if (dev < 0 || dev >= static_cast<int>(s.devs.size())) return 101;
  *bytes = s.devs[static_cast<size_t>(dev)].total;
  return 0;
}

MOCK_API cuCtxCreate_v2(CUcontext* ctx, unsigned int, CUdevice dev) {
  State& s = state();
  if (!s.inited) return 3;
  if (dev < 0 || dev >= static_cast<int>(s.devs.size())) return 101;
  if (CUresult r = behave(&s.devs[static_cast<size_t>(dev)], "cuCtxCreate")) return r;
  g_current = new Ctx{dev};
  *ctx = reinterpret_cast<CUcontext>(g_current);
  return 0;
}

MOCK_API cuCtxDestroy_v2(CUcontext ctx) {
  if (ctx == nullptr) return 201;
  if (reinterpret_cast<Ctx*>(ctx) == g_current) g_current = nullptr;
  delete reinterpret_cast<Ctx*>(ctx);
  return 0;
}

MOCK_API cuCtxSynchronize() {
  if (current() == nullptr) return 201;
  return behave(current(), "cuCtxSynchronize");
}

MOCK_API cuMemGetInfo_v2(size_t* free_b, size_t* total_b) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  if (CUresult r = behave(d, "cuMemGetInfo")) return r;
  *total_b = d->total;
  *free_b = d->total > d->used ? d->total - d->used : 0;
  return 0;
}

MOCK_API cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  if (CUresult r = behave(d, "cuMemAlloc")) return r;
  const uint64_t backing = state().cuda.value("backing_mib", 256ull) << 20;
  if (bytes > backing) {
    fprintf(stderr, "mock-cuda: allocations above backing_mib (%llu MiB) are out of memory\n",
            static_cast<unsigned long long>(backing >> 20));
    return 2;
  }
  if (bytes > d->total - std::min(d->total, d->used)) return 2;
  void* m = std::calloc(1, bytes);  // touched now, as the driver maps it
  if (m == nullptr) return 2;
  std::memset(m, 0, bytes);
  *p = reinterpret_cast<CUdeviceptr>(m);
  return 0;
}

MOCK_API cuMemFree_v2(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  return 0;
}

MOCK_API cuMemAllocHost_v2(void** p, size_t bytes) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  if (CUresult r = behave(d, "cuMemAllocHost")) return r;
  *p = std::malloc(bytes);  // pinned: every page faulted in now
  if (*p == nullptr) return 2;
  std::memset(*p, 0, bytes);
  return 0;
}

MOCK_API cuMemFreeHost(void* p) {
  std::free(p);
  return 0;
}

MOCK_API cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  auto t0 = std::chrono::steady_clock::now();
  if (CUresult r = behave(d, "cuMemcpyHtoD")) return r;
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  pace(d->cuda.value("h2d_gb_per_s", d->link_gb_per_s), bytes, t0);
  return 0;
}

thread_local CUdeviceptr g_first_alloc = 0;

MOCK_API cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  auto t0 = std::chrono::steady_clock::now();
  if (CUresult r = behave(d, "cuMemcpyDtoH")) return r;
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  if (d->cuda.value("corrupt_readback", false) && bytes > 4096 + 4)
    static_cast<unsigned char*>(dst)[4096] ^= 0x10;
  pace(d->cuda.value("d2h_gb_per_s", d->link_gb_per_s), bytes, t0);
  return 0;
}

MOCK_API cuModuleLoadData(CUmodule* mod, const void* image) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  if (CUresult r = behave(d, "cuModuleLoadData")) return r;
  std::string text = static_cast<const char*>(image);
  if (text.find(".version") == std::string::npos || text.find(".entry") == std::string::npos)
    return 218;
  *mod = reinterpret_cast<CUmodule>(new Module{text});
  return 0;
}

MOCK_API cuModuleGetFunction(CUfunction* fn, CUmodule mod, const char* name) {
  if (mod == nullptr) return 400;
  if (CUresult r = behave(current(), "cuModuleGetFunction")) return r;
  const std::string& text = reinterpret_cast<Module*>(mod)->text;
  if (text.find(std::string(".entry ") + name + "(") == std::string::npos) return 500;
  *fn = reinterpret_cast<CUfunction>(new Function{name});
  return 0;
}

MOCK_API cuModuleUnload(CUmodule mod) {
  delete reinterpret_cast<Module*>(mod);
  return 0;
}

MOCK_API cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int, CUstream,
                        void** params, void**) {
  const Dev* d = current();
  if (d == nullptr) return 201;
  if (fn == nullptr || params == nullptr) return 1;
  if (CUresult r = behave(d, "cuLaunchKernel")) return r;
  // gt_fill(out, n, seed): out[i] = value(i, seed) for every thread i < n.
  auto* out = reinterpret_cast<unsigned int*>(*static_cast<CUdeviceptr*>(params[0]));
  const unsigned int n = *static_cast<unsigned int*>(params[1]);
  const unsigned int seed = *static_cast<unsigned int*>(params[2]);
  const unsigned long long threads = 1ull * gx * gy * gz * bx * by * bz;
  for (unsigned long long i = 0; i < threads && i < n; ++i) out[i] = gt::cuda_kernel_value(i, seed);
  return 0;
}

MOCK_API cuDeviceCanAccessPeer(int* can, CUdevice a, CUdevice b) {
  State& s = state();
  if (!s.inited) return 3;
  const int n = static_cast<int>(s.devs.size());
  if (a < 0 || b < 0 || a >= n || b >= n || a == b) return 101;
  int ia = s.devs[static_cast<size_t>(a)].index, ib = s.devs[static_cast<size_t>(b)].index;
  *can = 1;
  json denied = s.cuda.value("peer_denied", json::array());
  for (const json& p : denied)
    if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer() &&
        ((p[0] == ia && p[1] == ib) || (p[0] == ib && p[1] == ia)))
      *can = 0;
  return 0;
}
