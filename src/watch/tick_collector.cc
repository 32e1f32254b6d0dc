#include "watch/tick_collector.h"

#include <unistd.h>

#include <chrono>

#include "checks/registry.h"
#include "collect/collect.h"
#include "sources/nvml/nvml_collector.h"
#include "sources/procfs/process_info.h"
#include "util/fs_root.h"

namespace gt {
TickCollector::TickCollector(TickOptions options) : o_(std::move(options)) {
  Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open(o_.nvml_lib);
  if (lib)
    lib_ = *lib;
  else
    load_error_ = lib.error().message;
}

bool TickCollector::threads_stuck() const { return init_returned_ || !stuck_.empty(); }

void TickCollector::keep_identity(GpuState& g) const {
  auto it = last_answered_.find(g.index);
  if (it == last_answered_.end()) return;
  const GpuState& old = it->second;
  if (!g.name) g.name = old.name;
  if (!g.uuid) g.uuid = old.uuid;
  if (!g.serial) g.serial = old.serial;
  if (!g.pci_bus_id) g.pci_bus_id = old.pci_bus_id;
  if (!g.memory_total_bytes) g.memory_total_bytes = old.memory_total_bytes;
}

void TickCollector::collect_gpus(NodeSnapshot& snap) {
  snap.nvml.library_path = o_.nvml_lib;
  if (!lib_) {
    snap.nvml.error_message = load_error_;
    snap.nvml.load_error = load_error_;
    snap.nvml.init_error = NvmlInitError::kLibraryNotFound;
    return;
  }
  snap.nvml.loaded = true;
  snap.nvml.missing_symbols = lib_->missing_optional();
  // An init still stuck from an earlier tick: asking again strands another.
  if (init_returned_ && !init_returned_()) {
    snap.nvml.init_error = NvmlInitError::kTimeout;
    snap.nvml.error_message = init_stuck_text_;
    return;
  }
  init_returned_ = nullptr;
  NvmlCollectOptions co;
  co.timeout = o_.timeout;
  co.sample_window = o_.sample_window;
  const FsRoot root(o_.root);
  co.enrich_process = [root](GpuProcess& p) { fill_process_details(root, p); };
  for (auto it = stuck_.begin(); it != stuck_.end();) {
    if (it->second.first()) {
      it = stuck_.erase(it);  // returned: ask it again
      continue;
    }
    co.skip_gpus[it->first] = "still no answer; stuck in " + it->second.second;
    ++it;
  }
  NvmlCollectOutcome out = collect_nvml(lib_, co, snap);
  if (out.init_returned) {
    init_returned_ = out.init_returned;
    init_stuck_text_ = snap.nvml.error_message;
  }
  for (auto& [i, probe] : out.gpu_returned) {
    std::string call = "an NVML call";
    for (const GpuState& g : snap.gpus)
      if (g.index == i && g.stuck_in_call) call = *g.stuck_in_call;
    stuck_[i] = {probe, call};
  }
  for (GpuState& g : snap.gpus) {
    if (g.status == GpuStatus::kOk) {
      last_answered_[g.index] = g;
      continue;
    }
    if (auto it = stuck_.find(g.index); it != stuck_.end()) {
      g.status = GpuStatus::kUnresponsive;
      g.stuck_in_call = it->second.second;
    }
    keep_identity(g);
  }
}

Report TickCollector::collect(const KernelLog& kernel_log) {
  // The one pipeline (collect/) with watch's own GPU collector: it never
  // asks a stuck GPU again.
  Report report = collect_tick(
      FsRoot(o_.root), [&](NodeSnapshot& s) { collect_gpus(s); }, kernel_log, o_.stages);
  report.snapshot.sample_window_s = o_.sample_window.count() / 1000.0;
  // Judge, as the triage does.
  judge(report, make_check_options(o_.expect_gpus, Origin::kNvml));
  return report;
}

}  // namespace gt
