// One tick of `gpu-triage watch`: the GPUs through NVML under the triage's
// deadline, the servers holding them, the PCI bus and modules, the kernel
// log events followed so far, judged by the same checks as the triage.
//
// Never hangs, and never strands a thread per tick: a GPU whose NVML call
// did not return by the deadline is not asked again while that thread is
// still inside the driver (it is shown unresponsive, stuck in the same call,
// with the identity it last answered); once the thread returns, the GPU is
// asked again. The same holds for nvmlInit: while an init is stuck, no NVML
// call is made at all. So at most one thread per GPU (and one for init) can
// ever be stuck, however long watch runs.
//
// Left out of a tick, to stay light: the incident timeline (journal,
// timedatectl), disk space, mounts and the record across boots; the triage
// reads those once.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collect/collect.h"
#include "model/report.h"
#include "sources/nvml/nvml_api.h"

namespace gt {

struct TickOptions {
  std::string nvml_lib = "libnvidia-ml.so.1";
  std::string root = "/";
  std::chrono::milliseconds timeout{5000};        ///< per tick, as the triage's --timeout
  std::chrono::milliseconds sample_window{1000};  ///< utilisation window inside a tick
  std::optional<uint32_t> expect_gpus;
  Stages stages = kAllStages;  ///< the watch command's (cli/commands.cc), per tick
};

class TickCollector {
 public:
  explicit TickCollector(TickOptions options);

  /// Collects and judges one tick. `kernel_log` is what following the log
  /// gave so far (events folded, its source), judged as the triage's.
  Report collect(const KernelLog& kernel_log);

  /// The loaded library (null when it could not be loaded): the event
  /// watcher shares it.
  std::shared_ptr<NvmlLibrary> library() const { return lib_; }
  /// True when a thread is still stuck inside NVML (the caller then leaves
  /// with _exit()).
  bool threads_stuck() const;

 private:
  void collect_gpus(NodeSnapshot& snap);
  void keep_identity(GpuState& g) const;

  TickOptions o_;
  std::shared_ptr<NvmlLibrary> lib_;
  std::optional<std::string> load_error_;
  std::function<bool()> init_returned_;  ///< set while an init is stuck
  std::optional<std::string> init_stuck_text_;
  /// Per GPU stuck in an earlier tick: the probe and the call it is in.
  std::map<unsigned, std::pair<std::function<bool()>, std::string>> stuck_;
  std::map<unsigned, GpuState> last_answered_;  ///< identity for a GPU now stuck
};

}  // namespace gt
