// The driver's own verdicts on a GPU (nvml-abi 8.3, 8.6, 8.8): recovery
// action, row remapper histogram, temperature thresholds and margin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// Deprecated fields 226/227: 0 -> false, 1 -> true, else nullopt. No
/// header documents the encoding; nvidia-smi prints them as Yes/No.
std::optional<bool> reset_status_flag(uint64_t value);

/// Field 230 into g.recovery (action + action_code); only when 230 is not
/// supported, the deprecated 226/227 into reset_required /
/// drain_and_reset_recommended.
void read_recovery(NvmlCaller& c, nvmlDevice_t dev);

/// GetRowRemapperHistogram into g.row_remapper_histogram.
void read_row_remapper_histogram(NvmlCaller& c, nvmlDevice_t dev);

/// Thresholds (shutdown, slowdown, memory max, GPU max), memory temperature
/// (field 82) and the slowdown margin into g.thermal. Reads g.temperature_c
/// for the margin fallback: call it after the temperature is read.
void read_thermal(NvmlCaller& c, nvmlDevice_t dev);

}  // namespace gt
