#include "sources/nvml/nvml_limit_time.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "sources/nvml/nvml_fields.h"

namespace gt {

ReasonTimeFields reason_time_fields(const std::optional<std::string>& driver_version) {
  if (!driver_version) return ReasonTimeFields::kNone;
  const int major = std::atoi(driver_version->c_str());
  if (major >= 575 && major < 590) return ReasonTimeFields::kR580;
  return ReasonTimeFields::kNone;
}

namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// NVML's own timestamp when it gave one, else ours, taken just after.
int64_t stamp(int64_t nvml_us) { return nvml_us > 0 ? nvml_us : now_us(); }

std::optional<LimitCounterRead> policy(NvmlCaller& c, nvmlDevice_t dev, int which) {
  nvmlViolationTime_t v{};
  if (!c.call(c.api().violation_status, dev, which, &v)) return std::nullopt;
  return LimitCounterRead{v.violationTime, stamp(static_cast<int64_t>(v.referenceTime))};
}

void read_reason_fields(NvmlCaller& c, nvmlDevice_t dev, LimitCounters& out) {
  // Only R575/R580 numbering is read (see reason_time_fields).
  auto v = read_fields(c, dev,
                       {NVML_FI_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN_R580,
                        NVML_FI_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN_R580,
                        NVML_FI_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN_R580});
  if (!v) return;
  const LimitKind kinds[3] = {kSwThermal, kHwThermal, kHwPowerBrake};
  for (int i = 0; i < 3; ++i) {
    if (kinds[i] == kSwThermal && out[kSwThermal]) continue;  // the policy answered
    if (!field_ok(c, (*v)[i])) continue;
    std::optional<uint64_t> ns = field_uint((*v)[i]);
    if (ns) out[kinds[i]] = LimitCounterRead{*ns, stamp((*v)[i].timestamp)};
  }
}

}  // namespace

LimitCounters read_limit_counters(NvmlCaller& c, nvmlDevice_t dev, ReasonTimeFields fields) {
  LimitCounters out;
  out[kSwPowerCap] = policy(c, dev, NVML_PERF_POLICY_POWER);
  out[kSwThermal] = policy(c, dev, NVML_PERF_POLICY_THERMAL);
  out[kSyncBoost] = policy(c, dev, NVML_PERF_POLICY_SYNC_BOOST);
  out[kBoardLimit] = policy(c, dev, NVML_PERF_POLICY_BOARD_LIMIT);
  out[kLowUtilization] = policy(c, dev, NVML_PERF_POLICY_LOW_UTILIZATION);
  out[kReliability] = policy(c, dev, NVML_PERF_POLICY_RELIABILITY);
  if (fields == ReasonTimeFields::kR580) read_reason_fields(c, dev, out);
  return out;
}

std::optional<double> limit_share(const std::optional<LimitCounterRead>& start,
                                  const std::optional<LimitCounterRead>& end) {
  if (!start || !end) return std::nullopt;
  if (end->at_us <= start->at_us || end->violation_ns < start->violation_ns) return std::nullopt;
  const double wall_ns = static_cast<double>(end->at_us - start->at_us) * 1000.0;
  const double held_ns = static_cast<double>(end->violation_ns - start->violation_ns);
  // Driver and clock sample at slightly different moments: a share a hair
  // over 1 means "the whole window"; well over 1 means the counter is not
  // what we take it for (a renumbered field, another unit): unknown.
  const double share = held_ns / wall_ns;
  if (share > 1.05) return std::nullopt;
  return std::clamp(share, 0.0, 1.0);
}

void apply_limit_shares(const LimitCounters& start, const LimitCounters& end, LimitTime& out) {
  out.sw_power_cap_share = limit_share(start[kSwPowerCap], end[kSwPowerCap]);
  out.sw_thermal_share = limit_share(start[kSwThermal], end[kSwThermal]);
  out.sync_boost_share = limit_share(start[kSyncBoost], end[kSyncBoost]);
  out.board_limit_share = limit_share(start[kBoardLimit], end[kBoardLimit]);
  out.low_utilization_share = limit_share(start[kLowUtilization], end[kLowUtilization]);
  out.reliability_share = limit_share(start[kReliability], end[kReliability]);
  out.hw_thermal_share = limit_share(start[kHwThermal], end[kHwThermal]);
  out.hw_power_brake_share = limit_share(start[kHwPowerBrake], end[kHwPowerBrake]);
}

}  // namespace gt
