// Collecting the GPU part of a NodeSnapshot through NVML, without ever
// hanging.
//
// A wedged GPU can block an NVML call forever (the driver waits on the
// device). So nvmlInit and the node-wide queries run on one thread, each GPU
// is queried on a thread of its own, and the caller waits for all of them
// only until a single deadline (`timeout` after the start). A GPU whose
// thread has not finished by then is reported as unresponsive, naming the
// call it was inside; what it had answered before is kept. Stuck threads
// are detached and abandoned: the caller must then leave the process with
// _exit() rather than run destructors or nvmlShutdown.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "model/snapshot.h"
#include "sources/nvml/nvml_api.h"

namespace gt {

struct NvmlCollectOptions {
  /// Deadline for everything, counted from the call: init, all GPUs, and the
  /// utilization sample window.
  std::chrono::milliseconds timeout{5000};
  /// Utilization is sampled over this window (several samples); 0 takes one.
  std::chrono::milliseconds sample_window{1000};
  /// Called on the GPU's own thread for each process NVML reports, so that a
  /// /proc read that blocks is covered by the same deadline.
  std::function<void(GpuProcess&)> enrich_process;
  /// Query the GPUs concurrently (the default). false queries them one after
  /// another on a single thread: the baseline `make bench` compares with.
  bool parallel = true;
  /// Ask topology and P2P for every pair of GPUs (GpuState::peers); false
  /// skips them (`make bench` measures what they add).
  bool peers = true;
  /// GPUs not to ask this time, each with why (`gpu-triage watch`: a thread
  /// of an earlier collection is still stuck in it, and asking again would
  /// only strand another). Reported unresponsive, stuck_in_call kept.
  std::map<unsigned, std::string> skip_gpus;
};

struct NvmlCollectOutcome {
  /// True when a thread was abandoned inside NVML (init or a GPU hung).
  bool abandoned_threads = false;
  /// For each GPU whose thread was abandoned: a probe that says whether the
  /// thread has since returned (safe to call at any time, from any thread).
  std::map<unsigned, std::function<bool()>> gpu_returned;
  /// Set when the node phase (nvmlInit) was abandoned: whether it returned.
  std::function<bool()> init_returned;
};

/// Fills snap.nvml (init result), the node-wide versions, gpu_count and
/// gpus from `lib`. Never blocks past options.timeout plus scheduling slack.
NvmlCollectOutcome collect_nvml(std::shared_ptr<NvmlLibrary> lib, const NvmlCollectOptions& options,
                                NodeSnapshot& snap);

/// Number of utilization samples taken over `window` (1 when it is 0).
int utilization_sample_count(std::chrono::milliseconds window);

/// "13.1" from NVML's integer CUDA driver version 13010.
std::string format_cuda_version(int v);

/// Interprets one process record of `record_bytes` (16, 24 or 32) bytes.
GpuProcess parse_process_record(const unsigned char* rec, int record_bytes);

}  // namespace gt
