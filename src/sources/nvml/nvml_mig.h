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

/// Framebuffer memory of a GPU or a MIG device handle; `reserved` only
/// from the _v2 call.
struct MemoryBytes {
  uint64_t total = 0, used = 0, free = 0;
  std::optional<uint64_t> reserved;
};

/// Whether a _v2 call that failed (other than by an older driver's version
/// mismatch, which always falls back) is asked again with v1: a whole GPU
/// always is; a MIG device only when the driver lacks _v2 (nvml_absent).
enum class MemoryV1Fallback { kAlways, kWhenAbsent };

/// nvmlDeviceGetMemoryInfo_v2, else v1; nullopt when neither answered
/// (errors recorded through `c`).
std::optional<MemoryBytes> read_memory(NvmlCaller& c, nvmlDevice_t h, MemoryV1Fallback fallback);

}  // namespace gt
