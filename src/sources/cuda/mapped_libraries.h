// What the running GPU processes have mapped of NVIDIA's driver libraries,
// from /proc/PID/maps: the proof of what their CUDA runs on. A line's path
// is the file the process mapped, links already followed by the kernel; a
// file replaced or removed on disk since (a driver upgrade under a running
// server) ends in " (deleted)" (proc(5)). The release is the file name's
// ("libcuda.so.590.48.01"); a library whose name carries none has a null one.
//
// Which processes: those NVML lists. When NVML listed none because it did
// not answer (a version mismatch after an upgrade: the servers still run on
// the old libraries), every process under /proc whose maps names a driver
// library, within kMaxScannedProcesses and kMaxScannedBytes (the bound said
// in a note when reached).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cuda_readiness.h"
#include "model/snapshot.h"
#include "util/fs_root.h"

namespace gt {

inline constexpr uint64_t kMaxMapsBytes = 16ull << 20;      ///< one process's maps
inline constexpr size_t kMaxScannedProcesses = 4096;        ///< the scan without NVML
inline constexpr uint64_t kMaxScannedBytes = 256ull << 20;  ///< all maps read by the scan
inline constexpr size_t kMaxMappedProcesses = 256;          ///< processes kept

/// The driver libraries named in one maps text, each path once, in order.
std::vector<MappedLibrary> parse_driver_mappings(std::string_view maps);

/// Fills r.mapped (and r.notes with what could not be read).
void read_mapped_libraries(const FsRoot& root, const NodeSnapshot& snap, CudaReadiness& r);

}  // namespace gt
