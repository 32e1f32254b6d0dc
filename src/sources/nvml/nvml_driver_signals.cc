#include "sources/nvml/nvml_driver_signals.h"

#include "sources/nvml/nvml_fields.h"

namespace gt {

// model/driver_recovery.cc numbers the actions as NVML's header does.
static_assert(NVML_GPU_RECOVERY_ACTION_NONE == 0 && NVML_GPU_RECOVERY_ACTION_GPU_RESET == 1 &&
              NVML_GPU_RECOVERY_ACTION_NODE_REBOOT == 2 &&
              NVML_GPU_RECOVERY_ACTION_DRAIN_P2P == 3 &&
              NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET == 4 &&
              NVML_GPU_RECOVERY_ACTION_BUS_RESET == 6 &&
              NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT == 7);

std::optional<bool> reset_status_flag(uint64_t value) {
  if (value == 0) return false;
  if (value == 1) return true;
  return std::nullopt;
}

namespace {

void read_deprecated_reset_status(NvmlCaller& c, nvmlDevice_t dev) {
  auto v = read_fields(c, dev, {NVML_FI_DEV_RESET_STATUS, NVML_FI_DEV_DRAIN_AND_RESET_STATUS});
  if (!v) return;
  std::optional<bool>* into[2] = {&c.gpu().recovery.reset_required,
                                  &c.gpu().recovery.drain_and_reset_recommended};
  for (int i = 0; i < 2; ++i) {
    if (!field_ok(c, (*v)[i])) continue;
    std::optional<uint64_t> n = field_uint((*v)[i]);
    *into[i] = n ? reset_status_flag(*n) : std::nullopt;
    if (*into[i]) c.gpu().recovery.flags_from_deprecated_fields = true;
    if (!*into[i])
      c.gpu().errors.push_back("nvmlDeviceGetFieldValues(field " + std::to_string((*v)[i].fieldId) +
                               "): value " + (n ? std::to_string(*n) : "of an unexpected type") +
                               " is neither 0 nor 1; left unknown");
  }
}

}  // namespace

void read_recovery(NvmlCaller& c, nvmlDevice_t dev) {
  auto v = read_fields(c, dev, {NVML_FI_DEV_GET_GPU_RECOVERY_ACTION});
  if (!v) return;
  const nvmlFieldValue_t& f = (*v)[0];
  if (field_ok(c, f)) {
    std::optional<uint64_t> code = field_uint(f);
    RecoveryState& r = c.gpu().recovery;
    // action_code keeps the number of a kUnknown (5: its meaning differs
    // between sources).
    r.action = code ? recovery_action_of_code(*code) : RecoveryAction::kUnknown;
    if (code && *code <= UINT32_MAX) r.action_code = static_cast<uint32_t>(*code);
    return;
  }
  // 226/227 only stand in when 230 itself is absent, not when it failed.
  if (nvml_absent(f.nvmlReturn) || f.nvmlReturn == NVML_ERROR_INVALID_ARGUMENT)
    read_deprecated_reset_status(c, dev);
}

void read_row_remapper_histogram(NvmlCaller& c, nvmlDevice_t dev) {
  nvmlRowRemapperHistogramValues_t h{};
  if (!c.call(c.api().row_remapper_histogram, dev, &h)) return;
  c.gpu().row_remapper_histogram = RowRemapperHistogram{h.max, h.high, h.partial, h.low, h.none};
}

namespace {

/// An absolute threshold in degrees C. Anything outside what a GPU's
/// limits are (a T.Limit-scale reply such as -2, or a wrapped unsigned) is
/// not one: unknown, and said so, never a margin computed from it.
constexpr int32_t kMinThresholdC = 40, kMaxThresholdC = 150;

std::optional<int32_t> threshold(NvmlCaller& c, nvmlDevice_t dev, int which) {
  unsigned t = 0;
  if (!c.call(c.api().temperature_threshold, dev, which, &t)) return std::nullopt;
  const int32_t v = static_cast<int32_t>(t);
  if (v < kMinThresholdC || v > kMaxThresholdC) {
    c.gpu().errors.push_back("nvmlDeviceGetTemperatureThreshold(" + std::to_string(which) + "): " +
                             std::to_string(v) + " is no absolute threshold in C; left unknown");
    return std::nullopt;
  }
  return v;
}

std::optional<int32_t> memory_temperature(NvmlCaller& c, nvmlDevice_t dev) {
  auto v = read_fields(c, dev, {NVML_FI_DEV_MEMORY_TEMP});
  if (!v || !field_ok(c, (*v)[0])) return std::nullopt;
  std::optional<int64_t> t = field_int((*v)[0]);
  if (!t || *t < -273 || *t > 1000) return std::nullopt;
  return static_cast<int32_t>(*t);
}

std::optional<int32_t> margin(NvmlCaller& c, nvmlDevice_t dev) {
  nvmlMarginTemperature_v1_t m{};
  m.version = nvmlMarginTemperature_v1;
  std::optional<nvmlReturn_t> r = c.raw(c.api().margin_temperature, dev, &m);
  if (!r) return std::nullopt;
  if (*r == NVML_SUCCESS) return m.marginTemperature;
  // A driver that knows only another struct version: same as not having it.
  if (*r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) c.check(c.api().margin_temperature.symbol, *r);
  return std::nullopt;
}

}  // namespace

void read_thermal(NvmlCaller& c, nvmlDevice_t dev) {
  ThermalState& t = c.gpu().thermal;
  // On Ada and later these may be NOT_SUPPORTED (the T.Limit fields 193-196
  // replace them, on another scale): they then stay null.
  t.shutdown_threshold_c = threshold(c, dev, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
  t.slowdown_threshold_c = threshold(c, dev, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
  t.memory_max_threshold_c = threshold(c, dev, NVML_TEMPERATURE_THRESHOLD_MEM_MAX);
  t.gpu_max_threshold_c = threshold(c, dev, NVML_TEMPERATURE_THRESHOLD_GPU_MAX);
  t.memory_temperature_c = memory_temperature(c, dev);
  t.slowdown_margin_c = margin(c, dev);
  const std::optional<int32_t>& now = c.gpu().temperature_c;
  if (!t.slowdown_margin_c && t.slowdown_threshold_c && now)
    t.slowdown_margin_c = *t.slowdown_threshold_c - *now;
}

}  // namespace gt
