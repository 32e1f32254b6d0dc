#include "sources/cuda_driver/cuda_child.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "sources/cuda_driver/cuda_api.h"

namespace gt {
namespace {

// PTX ISA 6.0 for sm_50: the driver's JIT compiles it for any GPU since
// Maxwell. One thread per word: out[i] = i * 2654435761 + seed.
constexpr const char* kPtx = R"(.version 6.0
.target sm_50
.address_size 64
.visible .entry gt_fill(.param .u64 out, .param .u32 n, .param .u32 seed)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [seed];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.u32 %r6, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r6, %r1;
  @%p1 bra DONE;
  mad.lo.u32 %r7, %r6, 0x9E3779B1, %r2;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
DONE:
  ret;
}
)";

constexpr unsigned int kSeed = 0x5eed1234u;
constexpr size_t kChunkBytes = 64ull << 20;
constexpr unsigned int kKernelThreads = 1u << 20;
constexpr unsigned int kBlock = 256;
constexpr uint64_t kRateBytes = 8ull << 20;
constexpr int kRateRuns = 5;

void say(const std::string& line) {
  std::string l = line + "\n";
  const char* p = l.data();
  size_t left = l.size();
  while (left > 0) {
    ssize_t n = ::write(1, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs one driver call as a reported step; false (after "fail") on error.
template <typename F>
bool step(const CudaApi& api, const char* name, F&& call) {
  say(fmt::format("step {}", name));
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = call();
  if (r != 0) {
    say(fmt::format("fail {} {} {}", name, r, cuda_error_name_from(api, r)));
    return false;
  }
  say(fmt::format("ok {} {:.3f}", name, ms_since(t0)));
  return true;
}

struct Args {
  std::string lib = "libcuda.so.1";
  std::string mode;  // "node", "bus", "peers"
  std::vector<std::string> buses;
  uint64_t memory_bytes = 1ull << 30;
  uint64_t margin_bytes = 512ull << 20;
};

std::optional<Args> parse(const std::vector<std::string>& a) {
  Args out;
  for (size_t i = 0; i < a.size(); ++i) {
    auto next = [&]() -> const std::string* { return i + 1 < a.size() ? &a[++i] : nullptr; };
    const std::string* v = nullptr;
    if (a[i] == "--node") {
      out.mode = "node";
    } else if (a[i] == "--lib" && (v = next())) {
      out.lib = *v;
    } else if (a[i] == "--bus" && (v = next())) {
      out.mode = "bus";
      out.buses = {*v};
    } else if (a[i] == "--peers" && (v = next())) {
      out.mode = "peers";
      for (size_t s = 0, e; s <= v->size(); s = e + 1) {
        e = v->find(',', s);
        if (e == std::string::npos) e = v->size();
        if (e > s) out.buses.push_back(v->substr(s, e - s));
      }
    } else if (a[i] == "--memory" && (v = next())) {
      out.memory_bytes = std::strtoull(v->c_str(), nullptr, 10);
    } else if (a[i] == "--margin" && (v = next())) {
      out.margin_bytes = std::strtoull(v->c_str(), nullptr, 10);
    } else {
      return std::nullopt;
    }
  }
  if (out.mode.empty()) return std::nullopt;
  return out;
}

bool init(const CudaApi& api) {
  int version = 0;
  if (api.cuDriverGetVersion(&version) == 0) say(fmt::format("version {}", version));
  return step(api, "cuInit", [&] { return api.cuInit(0); });
}

int node_mode(const CudaApi& api) {
  if (init(api)) {
    int count = 0;
    if (step(api, "cuDeviceGetCount", [&] { return api.cuDeviceGetCount(&count); }))
      say(fmt::format("count {}", count));
  }
  say("end");
  return 0;
}

/// The allocation, the pattern written through pinned memory and read back
/// (timing both directions), then the kernel's values. The caller frees.
struct Buffers {
  CUdeviceptr dev = 0;
  void* host_out = nullptr;
  void* host_in = nullptr;
};

/// Compares `words` read back against `want(i)`; reports the first
/// difference and the count of wrong words.
template <typename Want>
bool compare(const char* what, const unsigned int* got, uint64_t first_word, uint64_t words,
             Want&& want) {
  uint64_t wrong = 0, first = 0;
  unsigned int exp = 0, val = 0;
  for (uint64_t i = 0; i < words; ++i) {
    unsigned int w = want(first_word + i);
    if (got[i] == w) continue;
    if (wrong++ == 0) first = i, exp = w, val = got[i];
  }
  if (wrong == 0) return true;
  say(fmt::format("mismatch {} {} {} {} {}", what, (first_word + first) * 4, exp, val, wrong));
  return false;
}

bool pattern(const CudaApi& api, Buffers& b, uint64_t bytes) {
  const uint64_t chunk = std::min<uint64_t>(bytes, kChunkBytes);
  if (!step(api, "cuMemAllocHost", [&] {
        CUresult r = api.cuMemAllocHost(&b.host_out, chunk);
        return r != 0 ? r : api.cuMemAllocHost(&b.host_in, chunk);
      }))
    return false;
  auto* out = static_cast<unsigned int*>(b.host_out);
  auto* in = static_cast<unsigned int*>(b.host_in);
  say("step cuMemcpyHtoD");
  const auto t_write = std::chrono::steady_clock::now();
  for (uint64_t off = 0; off < bytes; off += chunk) {
    const uint64_t n = std::min(chunk, bytes - off);
    for (uint64_t i = 0; i < n / 4; ++i) out[i] = cuda_pattern_word(off / 4 + i, kSeed);
    CUresult r = api.cuMemcpyHtoD(b.dev + off, out, n);
    if (r != 0)
      return say(fmt::format("fail cuMemcpyHtoD {} {}", r, cuda_error_name_from(api, r))), false;
    say("tick");
  }
  say(fmt::format("ok cuMemcpyHtoD {:.3f}", ms_since(t_write)));
  say("step cuMemcpyDtoH");
  const auto t_read = std::chrono::steady_clock::now();
  bool same = true;
  for (uint64_t off = 0; off < bytes && same; off += chunk) {
    const uint64_t n = std::min(chunk, bytes - off);
    CUresult r = api.cuMemcpyDtoH(in, b.dev + off, n);
    if (r != 0)
      return say(fmt::format("fail cuMemcpyDtoH {} {}", r, cuda_error_name_from(api, r))), false;
    say("tick");
    same = compare("pattern", in, off / 4, n / 4,
                   [](uint64_t i) { return cuda_pattern_word(i, kSeed); });
  }
  if (!same) return false;
  say(fmt::format("ok cuMemcpyDtoH {:.3f}", ms_since(t_read)));
  return true;
}

/// The best of kRateRuns timed copies of one chunk each way, GB/s: the
/// best run, as bandwidth tests report (a run can lose the CPU).
bool copy_rates(const CudaApi& api, Buffers& b, uint64_t bytes) {
  const uint64_t n = std::min<uint64_t>(bytes, kRateBytes);
  double best_h2d = 0, best_d2h = 0;
  say("step copy_rates");
  for (int run = 0; run < kRateRuns; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    CUresult r = api.cuMemcpyHtoD(b.dev, b.host_out, n);
    const double h2d_s = ms_since(t0) / 1000;
    if (r != 0)
      return say(fmt::format("fail cuMemcpyHtoD {} {}", r, cuda_error_name_from(api, r))), false;
    say("tick");
    t0 = std::chrono::steady_clock::now();
    r = api.cuMemcpyDtoH(b.host_in, b.dev, n);
    const double d2h_s = ms_since(t0) / 1000;
    if (r != 0)
      return say(fmt::format("fail cuMemcpyDtoH {} {}", r, cuda_error_name_from(api, r))), false;
    say("tick");
    if (h2d_s > 0) best_h2d = std::max(best_h2d, n / h2d_s / 1e9);
    if (d2h_s > 0) best_d2h = std::max(best_d2h, n / d2h_s / 1e9);
  }
  say("ok copy_rates 0");
  if (best_h2d > 0) say(fmt::format("fig h2d_gb_per_s {:.3f}", best_h2d));
  if (best_d2h > 0) say(fmt::format("fig d2h_gb_per_s {:.3f}", best_d2h));
  return true;
}

bool kernel(const CudaApi& api, Buffers& b, uint64_t bytes) {
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  if (!step(api, "cuModuleLoadData", [&] { return api.cuModuleLoadData(&mod, kPtx); }))
    return false;
  bool ok = step(api, "cuModuleGetFunction",
                 [&] { return api.cuModuleGetFunction(&fn, mod, "gt_fill"); });
  unsigned int n = static_cast<unsigned int>(std::min<uint64_t>(kKernelThreads, bytes / 4));
  unsigned int seed = kSeed ^ 0xa5a5a5a5u;
  CUdeviceptr out = b.dev;
  void* params[] = {&out, &n, &seed};
  ok = ok && step(api, "cuLaunchKernel", [&] {
         return api.cuLaunchKernel(fn, (n + kBlock - 1) / kBlock, 1, 1, kBlock, 1, 1, 0, nullptr,
                                   params, nullptr);
       });
  ok = ok && step(api, "cuCtxSynchronize", [&] { return api.cuCtxSynchronize(); });
  if (ok) say(fmt::format("fig kernel_threads {}", n));
  ok = ok && step(api, "kernel_readback",
                  [&] { return api.cuMemcpyDtoH(b.host_in, b.dev, uint64_t{n} * 4); });
  ok = ok && compare("kernel", static_cast<unsigned int*>(b.host_in), 0, n,
                     [&](uint64_t i) { return cuda_kernel_value(i, seed); });
  api.cuModuleUnload(mod);
  return ok;
}

void free_all(const CudaApi& api, Buffers& b) {
  if (b.host_out) api.cuMemFreeHost(b.host_out);
  if (b.host_in) api.cuMemFreeHost(b.host_in);
  if (b.dev) api.cuMemFree(b.dev);
  b = Buffers{};
}

void gpu_steps(const CudaApi& api, const Args& a) {
  CUdevice dev = 0;
  if (!init(api)) return;
  if (!step(api, "cuDeviceGetByPCIBusId",
            [&] { return api.cuDeviceGetByPCIBusId(&dev, a.buses[0].c_str()); }))
    return;
  char name[256] = {};
  say(fmt::format("fig ordinal {}", dev));
  if (api.cuDeviceGetName(name, sizeof name - 1, dev) == 0) say(fmt::format("fig name {}", name));
  CUcontext ctx = nullptr;
  if (!step(api, "cuCtxCreate", [&] { return api.cuCtxCreate(&ctx, 0, dev); })) return;
  size_t free_b = 0, total_b = 0;
  Buffers b;
  if (step(api, "cuMemGetInfo", [&] { return api.cuMemGetInfo(&free_b, &total_b); })) {
    say(fmt::format("fig total_bytes {}", total_b));
    say(fmt::format("fig free_bytes {}", free_b));
    uint64_t room = free_b > a.margin_bytes ? free_b - a.margin_bytes : 0;
    // The request rounded up to a whole page (never down to nothing), within
    // the room rounded down: 0 only when the room is under a page.
    const uint64_t want = (a.memory_bytes + 4095) / 4096 * 4096;
    uint64_t bytes = std::min<uint64_t>(want, room / 4096 * 4096);
    if (bytes == 0) {
      say(fmt::format("skip only {} bytes free, under the margin of {}", free_b, a.margin_bytes));
    } else if (step(api, "cuMemAlloc", [&] { return api.cuMemAlloc(&b.dev, bytes); })) {
      say(fmt::format("fig tested_bytes {}", bytes));
      if (pattern(api, b, bytes) && kernel(api, b, bytes)) copy_rates(api, b, bytes);
    }
  }
  free_all(api, b);
  step(api, "cuCtxDestroy", [&] { return api.cuCtxDestroy(ctx); });
}

void peer_steps(const CudaApi& api, const Args& a) {
  if (!init(api)) return;
  std::vector<CUdevice> devs(a.buses.size());
  for (size_t i = 0; i < a.buses.size(); ++i)
    if (!step(api, "cuDeviceGetByPCIBusId",
              [&] { return api.cuDeviceGetByPCIBusId(&devs[i], a.buses[i].c_str()); }))
      return;
  say("step cuDeviceCanAccessPeer");
  for (size_t i = 0; i < devs.size(); ++i)
    for (size_t j = 0; j < devs.size(); ++j) {
      if (i == j) continue;
      int can = 0;
      CUresult r = api.cuDeviceCanAccessPeer(&can, devs[i], devs[j]);
      if (r != 0) {
        say(fmt::format("fail cuDeviceCanAccessPeer {} {}", r, cuda_error_name_from(api, r)));
        return;
      }
      say(fmt::format("peer {} {} {}", a.buses[i], a.buses[j], can != 0 ? 1 : 0));
    }
  say("ok cuDeviceCanAccessPeer 0");
}

}  // namespace

int run_cuda_child(const std::vector<std::string>& args) {
  std::optional<Args> a = parse(args);
  if (!a) {
    say("error bad arguments to __cuda-child (an internal command of gpu-triage cuda)");
    return 2;
  }
  Result<CudaApi> api = open_cuda_api(a->lib);
  if (!api) {
    say(fmt::format("load {}", api.error().message));
    say("end");
    return 0;
  }
  say(fmt::format("lib {}", api->file));
  if (a->mode == "node") return node_mode(*api);
  if (a->mode == "bus")
    gpu_steps(*api, *a);
  else
    peer_steps(*api, *a);
  say("end");
  return 0;
}

}  // namespace gt
