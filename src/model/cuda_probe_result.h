// What `gpu-triage cuda` proved on each selected GPU: the steps it passed
// with their times and figures, or the step it failed in (with the CUDA
// error) or was stuck in when its deadline passed. Filled by
// sources/cuda_driver/probe_run.cc from the children's reports, judged by
// checks/cuda_probe.cc. Unknown is std::nullopt, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gt {

/// One driver call the probe made, in order.
struct CudaStep {
  std::string name;          ///< the CUDA call: "cuInit", "cuCtxCreate", "readback", "kernel check"
  std::optional<double> ms;  ///< null: not finished (failed or stuck)
  bool operator==(const CudaStep&) const = default;
};

enum class CudaOutcome {
  kPassed,  ///< every step passed
  kFailed,  ///< a step returned an error or a wrong value
  kStuck,   ///< the deadline passed inside `stuck_in`, a call that did not return; killed
  /// The deadline passed while its calls kept returning (a slow host or
  /// copies): killed, not finished, and not stuck.
  kLate,
  kCrashed,    ///< the child died by a signal or exited without reporting
  kSkipped,    ///< not probed (busy without --include-busy, no free memory)
  kNotLoaded,  ///< the library could not be loaded or lacks a symbol
};
const char* cuda_outcome_name(CudaOutcome o);

/// A value read back that differs from what was written.
struct CudaMismatch {
  std::string what;  ///< "pattern" (H2D/D2H) or "kernel" (the per-thread values)
  uint64_t offset_bytes = 0;
  uint32_t expected = 0;
  uint32_t got = 0;
  uint64_t wrong_words = 0;  ///< how many 32-bit words differ in all
  bool operator==(const CudaMismatch&) const = default;
};

struct CudaGpuProbe {
  // Identity, from NVML (the selection); the CUDA ordinal as found by bus id.
  std::optional<uint32_t> nvml_index;
  std::optional<std::string> uuid;
  std::string pci_bus_id;  ///< NVML's form, as passed to cuDeviceGetByPCIBusId
  std::optional<int> cuda_ordinal;
  std::optional<std::string> cuda_name;

  CudaOutcome outcome = CudaOutcome::kSkipped;
  std::vector<CudaStep> steps;
  std::optional<std::string> stuck_in;     ///< the step a stuck child was in
  std::optional<std::string> failed_step;  ///< the step that returned the error
  std::optional<int> error_code;           ///< CUresult of failed_step
  std::optional<std::string> error_name;   ///< cuGetErrorName's, else the table's
  std::optional<int> signal;               ///< the child's terminating signal
  std::optional<std::string> detail;       ///< why skipped, a wrong value, the child's words
  std::optional<CudaMismatch> mismatch;

  std::optional<uint64_t> total_bytes;  ///< cuMemGetInfo
  std::optional<uint64_t> free_bytes;
  std::optional<uint64_t> tested_bytes;  ///< the buffer written and read back
  std::optional<uint64_t> kernel_threads;
  std::optional<double> h2d_gb_per_s;  ///< pinned host-to-device, 1e9 bytes/s
  std::optional<double> d2h_gb_per_s;
  /// The link as NVML reports it, and what it should carry (GB/s, one
  /// direction, at its max generation and width, after line encoding).
  std::optional<uint32_t> link_max_gen, link_max_width, link_gen, link_width;
  std::optional<double> link_gb_per_s;
  double elapsed_ms = 0;
  bool operator==(const CudaGpuProbe&) const = default;
};

/// cuDeviceCanAccessPeer between two probed GPUs of one group.
struct CudaPeerPair {
  std::string from_bus_id, to_bus_id;
  std::optional<uint32_t> from_index, to_index;
  std::optional<bool> can_access;  ///< null: the peer check did not finish
  bool operator==(const CudaPeerPair&) const = default;
};

/// A group of GPUs that must reach each other: one server's (TP) GPUs, or
/// the selection.
struct CudaPeerGroup {
  std::string who;  ///< "sglang (pid 3187, TP=8)", "the selection"
  std::vector<uint32_t> gpu_indices;
  std::vector<CudaPeerPair> pairs;
  std::optional<std::string> error;  ///< the peer child failed, was stuck, crashed
  bool operator==(const CudaPeerGroup&) const = default;
};

struct CudaProbeReport {
  std::string library;                         ///< what was asked of dlopen
  std::optional<std::string> library_file;     ///< what it mapped
  std::optional<std::string> library_version;  ///< from the file name: "565.57.01"
  std::optional<int> driver_api_version;       ///< cuDriverGetVersion: 12020
  std::optional<int> init_error;               ///< cuInit's error (node-wide)
  std::optional<std::string> init_error_name;
  std::optional<int> device_count;            ///< cuDeviceGetCount
  std::optional<std::string> load_error;      ///< dlopen's or a missing symbol
  std::optional<std::string> node_error;      ///< the node child stuck or crashed
  std::optional<std::string> module_version;  ///< the kernel module's (NVML/procfs)
  std::optional<std::string> nvml_error;      ///< NVML unusable: no GPU was selected
  std::vector<CudaGpuProbe> gpus;
  std::vector<CudaPeerGroup> peer_groups;
  uint64_t timeout_ms = 0;
  double elapsed_ms = 0;
  bool operator==(const CudaProbeReport&) const = default;
};

/// One direction of a PCIe link after line encoding, GB/s (1e9 bytes/s);
/// null for a generation this table does not know.
std::optional<double> pcie_gb_per_s(uint32_t gen, uint32_t width);

}  // namespace gt
