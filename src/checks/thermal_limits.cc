// Temperature against the GPU's own limits, and time spent in hardware
// limits (nvml-abi.md 8.6, 8.7).
//
// The margin is the GPU's own: NVML's margin temperature, a capture's
// T.Limit reading against its slowdown T.Limit threshold, or the slowdown
// threshold minus the temperature; never a fixed 85 C. Limits are judged by
// the share of the sample window the clocks were held by them: from the
// driver's violation counters when they were read at both ends of the
// window, else from the reasons mask read at each sample, else (a capture,
// `--sample 0`) from the one reading, said as such. The idle,
// application-clock, SW power cap and sync-boost reasons are normal
// operation and never judged.
#include <fmt/format.h>

#include "checks/checks.h"

namespace gt {
namespace {

constexpr int32_t kMarginWarnC = 5;
constexpr double kLimitShare = 0.10;

void margin_one(const GpuState& g, std::vector<Finding>& out) {
  const ThermalState& t = g.thermal;
  std::vector<std::string> near;
  if (t.slowdown_margin_c && *t.slowdown_margin_c <= kMarginWarnC)
    near.push_back(fmt::format("GPU {} C from its slowdown threshold", *t.slowdown_margin_c));
  if (t.memory_temperature_c && t.memory_max_threshold_c &&
      *t.memory_max_threshold_c - *t.memory_temperature_c <= kMarginWarnC)
    near.push_back(fmt::format("memory at {} C, its maximum {} C", *t.memory_temperature_c,
                               *t.memory_max_threshold_c));
  if (near.empty()) return;
  Finding f = gpu_finding("thermal.near_slowdown", g);
  f.title = gpu_label(g) + ": " + near.front() + (near.size() > 1 ? "; " + near[1] : "");
  auto c = [](const std::optional<int32_t>& v) {
    return v ? fmt::format("{} C", *v) : std::string("unknown");
  };
  f.evidence = fmt::format(
      "temperature {}, slowdown margin {}, slowdown threshold {}, shutdown threshold {}, memory "
      "{} (max {})",
      c(g.temperature_c), c(t.slowdown_margin_c), c(t.slowdown_threshold_c),
      c(t.shutdown_threshold_c), c(t.memory_temperature_c), c(t.memory_max_threshold_c));
  f.action =
      "The GPU is about to slow itself down: check airflow, inlet temperature and fans (and "
      "blanking panels) before it throttles.";
  f.commands = {"nvidia-smi -q -d TEMPERATURE,PERFORMANCE -i " + std::to_string(g.index)};
  out.push_back(f);
}

/// One limit: its finding id, the reasons bits that show it, and the
/// violation-time share that measures it (null when none is kept).
struct Limit {
  const char* id;
  uint64_t bits;  ///< 0: no reasons bit (only the time counter shows it)
  const char* what;
  std::optional<double> LimitTime::*share;
  std::optional<double> LimitTime::*second_share;
  const char* todo;
};

const char* kCoolingTodo =
    "Check cooling (fans, airflow, inlet temperature) and the power supply; a GPU held in "
    "slowdown runs jobs at a fraction of its speed.";

const Limit kLimits[] = {
    {"clocks.hw_slowdown", 0x8, "hardware slowdown (clocks cut by 2x or more)", nullptr, nullptr,
     kCoolingTodo},
    {"clocks.thermal", 0x40 | 0x20, "thermal slowdown", &LimitTime::hw_thermal_share,
     &LimitTime::sw_thermal_share, kCoolingTodo},
    {"clocks.power_brake", 0x80, "the external power brake", &LimitTime::hw_power_brake_share,
     nullptr,
     "The board's power-brake signal is asserted (a PSU or power-shelf fault, or a site "
     "power cap): check the power supplies and the BMC's event log."},
    {"clocks.reliability", 0, "the reliability limit", &LimitTime::reliability_share, nullptr,
     "Nothing to tune on the node: report it to the vendor if it persists."},
    {"clocks.board_limit", 0, "the board limit", &LimitTime::board_limit_share, nullptr,
     "Check the board's power configuration (`nvidia-smi -q -d POWER`)."},
};

/// How much of the window the limit held, in words; nullopt when it did
/// not hold long enough (or nothing says).
std::optional<std::string> held(const GpuState& g, double window_s, const Limit& l) {
  std::optional<double> share;
  if (l.share) share = g.limit_time.*l.share;
  if (l.second_share && g.limit_time.*l.second_share)
    share = std::max(share.value_or(0), *(g.limit_time.*l.second_share));
  if (share)
    return *share > kLimitShare
               ? std::optional(fmt::format("held {:.0f}% of the {:.1f} s window (violation time)",
                                           *share * 100, window_s))
               : std::nullopt;
  if (!l.bits) return std::nullopt;
  const std::vector<uint64_t>& samples = g.clock_event_reasons_samples;
  if (samples.size() >= 2) {
    size_t on = 0;
    for (uint64_t m : samples) on += (m & l.bits) != 0;
    double part = static_cast<double>(on) / samples.size();
    // One sample is a blip, not time spent in the limit.
    return on >= 2 && part > kLimitShare
               ? std::optional(fmt::format("active in {} of {} samples over {:.1f} s", on,
                                           samples.size(), window_s))
               : std::nullopt;
  }
  if (g.clock_event_reasons && (*g.clock_event_reasons & l.bits))
    return fmt::format("active at the one reading (0x{:016X}); its duration is unknown",
                       *g.clock_event_reasons);
  return std::nullopt;
}

void limits_one(const GpuState& g, double window_s, std::vector<Finding>& out) {
  for (const Limit& l : kLimits) {
    std::optional<std::string> how = held(g, window_s, l);
    if (!how) continue;
    Finding f = gpu_finding(l.id, g);
    f.title = gpu_label(g) + ": clocks limited by " + l.what;
    f.evidence = *how + fmt::format("; temperature {}",
                                    g.temperature_c ? std::to_string(*g.temperature_c) + " C"
                                                    : std::string("unknown"));
    f.action = l.todo;
    f.commands = {"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i " + std::to_string(g.index)};
    out.push_back(f);
  }
}

}  // namespace

void check_thermal_and_limits(const NodeSnapshot& s, std::vector<Finding>& out) {
  for (const GpuState& g : s.gpus) {
    margin_one(g, out);
    limits_one(g, s.sample_window_s, out);
  }
}

}  // namespace gt
