// NVLink per link (nvml-abi 8.5): state, version, peer, error counters at
// the start and the end of the sample window.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// end - start; nullopt when either read is missing or the counter went
/// backwards (a driver reload or a reset in between: no growth is known).
std::optional<uint64_t> counter_growth(std::optional<uint64_t> start, std::optional<uint64_t> end);

/// Enumerates links 0.. until the driver rejects one (INVALID_ARGUMENT or
/// NOT_SUPPORTED) and reads each; errors hold the counters now. nullopt
/// when link 0 is rejected (no NVLink) or the calls are not exported.
std::optional<std::vector<NvLink>> read_nvlinks(NvmlCaller& c, nvmlDevice_t dev);

/// Re-reads every link's counters at the end of the window: errors become
/// the end values, errors_growth end - start.
void read_nvlinks_window_end(NvmlCaller& c, nvmlDevice_t dev, std::vector<NvLink>& links);

}  // namespace gt
