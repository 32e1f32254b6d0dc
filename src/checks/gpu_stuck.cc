// gpu.stuck: a GPU busy over the whole sample window that nothing can be
// running on. Utilisation is the share of time a kernel ran (NVML), a kernel
// runs in a context, and a context holds device memory and is listed as a
// process (docs/physics.md R3). Busy with no process, no memory beyond the
// reserved and near-idle power is a kernel that never ends or a context
// left behind by a process that is gone: the GPU needs a reset.
#include <fmt/format.h>

#include "checks/checks.h"

namespace gt {
namespace {

constexpr double kBusyPct = 90;                   // every sample at least this busy
constexpr double kIdlePowerShare = 0.25;          // of the power limit: near idle
constexpr uint64_t kContextBytes = 256ull << 20;  // more than this is a context's memory

/// Memory held beyond the driver's reserve; null when not known.
std::optional<uint64_t> memory_beyond_reserved(const GpuState& g) {
  if (!g.memory_used_bytes) return std::nullopt;
  // The v1 call counts the reserve as used (about 0.5-1 GiB on data-center boards).
  const uint64_t reserve = g.memory_reserved_bytes ? 0 : (1ull << 30);
  return *g.memory_used_bytes > reserve ? *g.memory_used_bytes - reserve : 0;
}

bool stuck(const GpuState& g) {
  const std::optional<SampleStats>& u = g.utilization_gpu_pct;
  if (!u || u->samples < kMinIdleSamples || u->min < kBusyPct) return false;
  if (!g.processes || !g.processes->empty()) return false;
  const std::optional<uint64_t> held = memory_beyond_reserved(g);
  if (!held || *held > kContextBytes) return false;
  return g.power_draw_w && g.power_limit_w && *g.power_limit_w > 0 &&
         *g.power_draw_w < kIdlePowerShare * *g.power_limit_w;
}

}  // namespace

void check_gpu_stuck(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) {
    if (!stuck(g)) continue;
    Finding f = gpu_finding("gpu.stuck", g);
    const SampleStats& u = *g.utilization_gpu_pct;
    f.title = fmt::format("{} is busy ({:.0f}-{:.0f}%) with no process and at idle power: stuck",
                          gpu_label(g), u.min, u.max);
    f.evidence = fmt::format(
        "utilisation {:.0f}% at least over {} samples; NVML lists no process; {} MiB used "
        "beyond the reserve; {:.0f} W of {:.0f} W. Kernels run in a context, and a context "
        "holds memory and is listed: a GPU busy without one is a kernel that never ends or a "
        "context whose process is gone",
        u.min, u.samples, *memory_beyond_reserved(g) >> 20, *g.power_draw_w, *g.power_limit_w);
    const std::string index = std::to_string(g.index);
    f.action =
        "Nothing that runs can be using it: reset the GPU, after checking that no process "
        "has its device open; reboot if the reset fails.";
    f.commands = {"sudo fuser -v /dev/nvidia" + index, "sudo nvidia-smi -r -i " + index};
    out.push_back(f);
  }
}

}  // namespace gt
