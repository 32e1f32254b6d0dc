// MIG devices of a GPU in MIG mode (nvml-abi 8.9), and their processes.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "sources/nvml/nvml_call.h"

namespace gt {

/// Lists the processes of one handle (the collector's count-then-fill
/// protocol, compute and graphics merged); nullopt when that failed.
using ProcessLister = std::function<std::optional<std::vector<GpuProcess>>(nvmlDevice_t)>;

struct MigRead {
  std::vector<MigDevice> devices;
  /// Every MIG device's processes, each with its instance ids set.
  std::vector<GpuProcess> processes;
  /// True when every MIG device's process list was read.
  bool all_processes_listed = true;
};

/// Enumerates GetMaxMigDeviceCount slots (NOT_FOUND: an empty slot) and
/// reads each MIG device: instance ids, UUID, name, memory, processes.
/// nullopt when the GPU cannot enumerate MIG devices.
std::optional<MigRead> read_mig_devices(NvmlCaller& c, nvmlDevice_t parent,
                                        const ProcessLister& list_processes);

/// Appends each process of `from` not already in `into` (same PID and same
/// instance ids); a duplicate's types are joined ("compute+graphics").
void merge_mig_processes(std::vector<GpuProcess>& into, const std::vector<GpuProcess>& from);

/// Memory allocated by clients as nvidia-smi's "Used" shows it (v2 `used`
/// may include `reserved`: free + used == total says it does).
uint64_t allocated_bytes(const nvmlMemory_v2_t& m);

}  // namespace gt
