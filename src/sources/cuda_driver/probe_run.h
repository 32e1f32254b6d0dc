// `gpu-triage cuda`'s probe: one child per selected GPU (its steps), one
// for the node (cuDriverGetVersion, cuInit, cuDeviceGetCount) and one per
// peer group (cuDeviceCanAccessPeer), all started at once, each under the
// same deadline from its start (child_runner.h). Each child sees only its
// own GPUs (CUDA_VISIBLE_DEVICES by UUID) and finds them by PCI bus id,
// never by ordinal. A GPU a process holds is not allocated on unless
// include_busy.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cuda_probe_result.h"
#include "model/snapshot.h"
#include "sources/cuda_driver/child_runner.h"

namespace gt {

struct CudaProbeOptions {
  /// What dlopen is asked for: the libcuda a new job would load. Until the
  /// readiness stage's resolver (issue 34) is plugged in, the caller passes
  /// --cuda-lib / GPU_TRIAGE_CUDA_LIB or the bare soname (dlopen's search).
  std::string library = "libcuda.so.1";
  std::string self_exe = "/proc/self/exe";  ///< the binary run as the child
  uint64_t memory_bytes = 1ull << 30;       ///< at most this per GPU
  uint64_t margin_bytes = 512ull << 20;     ///< always left free
  std::chrono::milliseconds timeout{10000};
  bool include_busy = false;
};

/// Probes `selection` (nullopt: every GPU) of `snap`.
CudaProbeReport probe_cuda(const NodeSnapshot& snap,
                           const std::optional<std::vector<uint32_t>>& selection,
                           const CudaProbeOptions& o);

// The pure parts, for tests.

/// Reads a GPU child's lines and end into `g` (steps, figures, outcome).
void read_gpu_child(CudaGpuProbe& g, const ChildOutcome& o);
/// Reads the node child's lines into `r` (library, version, init, count).
void read_node_child(CudaProbeReport& r, const ChildOutcome& o);
/// Reads a peer child's lines into `group`.
void read_peer_child(CudaPeerGroup& group, const ChildOutcome& o);
/// "565.57.01" from ".../libcuda.so.565.57.01"; null otherwise.
std::optional<std::string> library_version_from_name(const std::string& file);

}  // namespace gt
