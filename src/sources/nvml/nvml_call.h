// NvmlCaller: how every per-GPU NVML call is made, shared by the collector
// and the query files beside it (driver signals, fabric, links, limit time,
// MIG).
//
// Before each call the GPU's state so far and the call's name are published
// to the collector, so a call that never returns is reported by name while
// the rest of the node is still collected. Return codes follow one rule:
// NOT_SUPPORTED, FUNCTION_NOT_FOUND and DEPRECATED mean "absent" (the field
// stays null, no error); GPU_IS_LOST marks the GPU lost and stops every later
// call; anything else leaves the field null and is recorded in
// GpuState::errors with the call's name.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "model/snapshot.h"
#include "sources/nvml/nvml_api.h"

namespace gt {

class NvmlCaller {
 public:
  /// Publishes the state so far and the call about to be made (nullptr:
  /// none). The name is copied before the call returns.
  using Publish = std::function<void(const char* call)>;

  NvmlCaller(const NvmlApi& api, GpuState& gpu, Publish publish)
      : api_(api), g_(gpu), publish_(std::move(publish)) {}

  const NvmlApi& api() const { return api_; }
  GpuState& gpu() { return g_; }
  bool lost() const { return lost_; }
  void publish(const char* call) { publish_(call); }

  /// Applies the return-code rule above; true when the result is usable.
  bool check(const char* symbol, nvmlReturn_t r);

  /// Calls `f` when it is exported and the GPU is not lost; true on SUCCESS.
  template <typename Sig, typename... Args>
  bool call(const NvmlFn<Sig>& f, Args... args) {
    if (!f || lost_) return false;
    publish_(f.symbol);
    return check(f.symbol, f.fn(args...));
  }

  /// Like call(), but hands the return code back for the caller to judge
  /// (a probe whose INVALID_ARGUMENT or version mismatch means something);
  /// nullopt when not exported or the GPU is lost. GPU_IS_LOST is recorded.
  template <typename Sig, typename... Args>
  std::optional<nvmlReturn_t> raw(const NvmlFn<Sig>& f, Args... args) {
    if (!f || lost_) return std::nullopt;
    publish_(f.symbol);
    nvmlReturn_t r = f.fn(args...);
    if (r == NVML_ERROR_GPU_IS_LOST) check(f.symbol, r);
    return r;
  }

  /// Records "what: NVML_ERROR_X" in the GPU's errors.
  void note_error(const std::string& what, nvmlReturn_t r);

 private:
  const NvmlApi& api_;
  GpuState& g_;
  Publish publish_;
  bool lost_ = false;
};

/// True for the codes that mean "this driver or GPU does not have it".
bool nvml_absent(nvmlReturn_t r);

}  // namespace gt
