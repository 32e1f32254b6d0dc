// The driver's own verdicts on a GPU (nvml-abi 8.3, 8.6, 8.8): recovery
// action, row remapper histogram, temperature thresholds and margin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// Our name for an nvmlDeviceGpuRecoveryAction_t value: "none", "gpu_reset",
/// "node_reboot", "drain_p2p", "drain_and_reset", "bus_reset",
/// "system_reboot"; "unknown" for 5 (its meaning differs between sources)
/// and anything else. Never "none" for a value we cannot name.
std::string recovery_action_name(uint64_t code);

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
