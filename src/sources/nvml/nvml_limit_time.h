// Time a GPU's clocks were held by each limit, as a share of the sample
// window (nvml-abi 8.7): the driver's cumulative nanosecond counters read at
// the window's start and end.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// Which field ids hold the HW thermal / HW power-brake (and SW thermal)
/// time on this driver (nvml-abi 8.2).
enum class ReasonTimeFields {
  kNone,  ///< not read: the driver's numbering is not known to us
  kR580,  ///< 251-253: the 12.9 and 13.0 headers, R575 and R580 drivers
};

/// The numbering for a driver version string ("580.65.06"). Only R575 and
/// R580 are known: nvidia-smi 580.65.06 asks for exactly 251-253. R570 and
/// older put power smoothing (or nothing) at 251, and which set R590+
/// drivers answer is not confirmed (the 13.1 header says 269-271, but the
/// header has already renumbered once): both give kNone, and those shares
/// stay null rather than risk reading a power-smoothing value as time.
ReasonTimeFields reason_time_fields(const std::optional<std::string>& driver_version);

enum LimitKind : int {
  kSwPowerCap,
  kSwThermal,
  kSyncBoost,
  kBoardLimit,
  kLowUtilization,
  kReliability,
  kHwThermal,
  kHwPowerBrake,
  kLimitKinds
};

/// One cumulative counter read: nanoseconds, and when (microseconds).
struct LimitCounterRead {
  uint64_t violation_ns = 0;
  int64_t at_us = 0;
};

using LimitCounters = std::array<std::optional<LimitCounterRead>, kLimitKinds>;

/// Reads every counter once: GetViolationStatus per policy, and the HW
/// reason fields of `fields` (SW thermal from the field only when the
/// THERMAL policy is unsupported).
LimitCounters read_limit_counters(NvmlCaller& c, nvmlDevice_t dev, ReasonTimeFields fields);

/// Δviolation_ns / Δwall_ns clamped to [0, 1]; nullopt when a read is
/// missing, no time passed, or the counter went backwards.
std::optional<double> limit_share(const std::optional<LimitCounterRead>& start,
                                  const std::optional<LimitCounterRead>& end);

/// Fills every *_share of `out` from two reads.
void apply_limit_shares(const LimitCounters& start, const LimitCounters& end, LimitTime& out);

}  // namespace gt
