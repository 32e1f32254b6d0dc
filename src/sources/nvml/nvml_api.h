// NvmlLibrary: libnvidia-ml loaded at run time through a function table.
//
// We never link against libnvidia-ml: on a node whose driver is missing or
// broken the binary must still start and say what is wrong. open() dlopen()s
// the library (default "libnvidia-ml.so.1", found by the dynamic loader) and
// resolves each entry point, newest symbol version first (_v3, _v2, plain),
// because the unversioned names still exist in new drivers but keep their
// old behaviour. A missing *required* symbol makes open() fail; a missing
// optional one leaves its pointer null and costs only its fields.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sources/nvml/nvml_types.h"
#include "util/result.h"

namespace gt {

/// One resolved entry point and the symbol string it came from (used to
/// name the call a GPU was stuck in).
template <typename Sig>
struct NvmlFn {
  Sig* fn = nullptr;
  const char* symbol = nullptr;
  explicit operator bool() const { return fn != nullptr; }
};

using DevFnU = nvmlReturn_t(nvmlDevice_t, unsigned int*);
using DevFnULL = nvmlReturn_t(nvmlDevice_t, unsigned long long*);
using DevFnStr = nvmlReturn_t(nvmlDevice_t, char*, unsigned int);
using DevFnProcs = nvmlReturn_t(nvmlDevice_t, unsigned int*, void*);

/// The table of every NVML entry point gpu-triage calls.
struct NvmlApi {
  // Required.
  NvmlFn<nvmlReturn_t()> init;  // nvmlInit_v2, else nvmlInit
  NvmlFn<nvmlReturn_t()> shutdown;
  NvmlFn<nvmlReturn_t(unsigned int*)> device_count;  // _v2, else plain
  NvmlFn<nvmlReturn_t(unsigned int, nvmlDevice_t*)> handle_by_index;

  // Optional: system.
  NvmlFn<const char*(nvmlReturn_t)> error_string;
  NvmlFn<nvmlReturn_t(char*, unsigned int)> driver_version;
  NvmlFn<nvmlReturn_t(char*, unsigned int)> nvml_version;
  NvmlFn<nvmlReturn_t(int*)> cuda_driver_version;  // _v2, else plain

  // Optional: identity.
  NvmlFn<DevFnStr> name, uuid, serial, vbios_version, board_part_number;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlPciInfo_t*)> pci_info;  // _v3,_v2,v1

  // Optional: memory, utilization, thermals, power.
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_v2_t*)> memory_v2;  // 11.6
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlMemory_t*)> memory_v1;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)> utilization;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlTemperature_v1_t*)> temperature_v;  // 12.8
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, unsigned int*)> temperature;
  NvmlFn<DevFnU> power_usage, enforced_power_limit, power_management_limit;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int*)> performance_state;
  NvmlFn<DevFnU> fan_speed;

  // Optional: modes.
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int*)> persistence_mode;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int*)> compute_mode;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*)> mig_mode;

  // Optional: ECC, retired pages, row remapping.
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int*, int*)> ecc_mode;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, int, unsigned long long*)> total_ecc_errors;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, unsigned int*, unsigned long long*)> retired_pages;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int*)> retired_pages_pending;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*)>
      remapped_rows;

  // Optional: PCIe.
  NvmlFn<DevFnU> pcie_curr_gen, pcie_max_gen, pcie_gpu_max_gen;  // last: 12.0
  NvmlFn<DevFnU> pcie_curr_width, pcie_max_width, pcie_replay_counter;

  // Optional: clock event reasons (EventReasons 12.2, else Throttle names).
  NvmlFn<DevFnULL> clock_reasons, clock_reasons_supported;

  // Optional: driver health signals (nvml-abi 8). First header in brackets.
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, nvmlFieldValue_t*)> field_values;  // <= 11.0
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlRowRemapperHistogramValues_t*)>
      row_remapper_histogram;  // 11.1
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, unsigned int*)> temperature_threshold;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlMarginTemperature_v1_t*)> margin_temperature;  // 12.8
  NvmlFn<nvmlReturn_t(nvmlDevice_t, int, nvmlViolationTime_t*)> violation_status;
  /// Versioned: the struct is nvmlGpuFabricInfo_v3_t or _v2_t by its version.
  NvmlFn<nvmlReturn_t(nvmlDevice_t, void*)> fabric_info_v;               // 12.4
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlGpuFabricInfo_t*)> fabric_info;  // 12.0

  // Optional: NVLink, per link (<= 11.0; remote device type 11.4).
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, int*)> nvlink_state;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, unsigned int*)> nvlink_version;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, nvmlPciInfo_t*)> nvlink_remote_pci;  // _v2
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, int*)> nvlink_remote_device_type;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, int, unsigned long long*)> nvlink_error_counter;

  // Optional: topology and peer access between two GPUs (<= 11.0).
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlDevice_t, int*)> topology_common_ancestor;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, nvmlDevice_t, int, int*)> p2p_status;

  // Optional: MIG devices (<= 11.0). A MIG handle also answers name, uuid,
  // memory and the process calls above.
  NvmlFn<DevFnU> max_mig_device_count;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned int, nvmlDevice_t*)> mig_device_handle_by_index;
  NvmlFn<DevFnU> gpu_instance_id, compute_instance_id;

  // Optional: event sets (<= 11.0; `gpu-triage watch` only).
  NvmlFn<nvmlReturn_t(nvmlEventSet_t*)> event_set_create;
  NvmlFn<nvmlReturn_t(nvmlDevice_t, unsigned long long, nvmlEventSet_t)> register_events;
  NvmlFn<nvmlReturn_t(nvmlEventSet_t, nvmlEventData_t*, unsigned int)> event_set_wait;  // _v2
  NvmlFn<nvmlReturn_t(nvmlEventSet_t)> event_set_free;

  // Optional: processes (see process_record_bytes).
  NvmlFn<DevFnProcs> compute_processes, graphics_processes;
  /// Size of one element the process calls write: 32 (early R535 _v3),
  /// 24 (_v3 and _v2) or 16 (unversioned).
  int process_record_bytes = 0;
};

/// One symbol open() asked for, in the order asked (fallbacks included),
/// with the signature the tool calls it through (gt::abi::describe_type;
/// empty for a symbol only probed for, never called).
/// Lets the tests compare every entry point against NVIDIA's nvml.h and
/// against the symbols NVIDIA's libraries export.
struct NvmlSymbol {
  std::string name;
  std::string signature;
  bool required = false;
};

/// A loaded libnvidia-ml. Never unloaded: a thread may still be inside it
/// when we give up on a hung GPU.
class NvmlLibrary {
 public:
  /// Loads `path` ("libnvidia-ml.so.1" to let the loader search) and
  /// resolves the table. Fails with kNotFound when the library cannot be
  /// loaded (dlerror's text) and kLibraryError when a required symbol is
  /// missing.
  static Result<std::shared_ptr<NvmlLibrary>> open(const std::string& path);

  const NvmlApi& api() const { return api_; }
  /// The path we asked dlopen for.
  const std::string& requested_path() const { return requested_path_; }
  /// The real file behind the loaded library (symlinks resolved), if known.
  const std::string& real_file() const { return real_file_; }
  /// Optional symbols this library does not export (for --json diagnostics).
  const std::vector<std::string>& missing_optional() const { return missing_; }
  /// Every symbol open() looked up (only when every required one resolved).
  const std::vector<NvmlSymbol>& wanted() const { return wanted_; }

  /// Symbolic name of an NVML return code ("NVML_ERROR_GPU_IS_LOST"); an
  /// unrecognised value gives "NVML_ERROR_<n>".
  static std::string return_name(nvmlReturn_t r);
  /// Our own one-line description of a return code (not nvmlErrorString's
  /// text, which is not part of the ABI).
  static std::string describe(nvmlReturn_t r);

 private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
  NvmlApi api_;
  std::string requested_path_;
  std::string real_file_;
  std::vector<std::string> missing_;
  std::vector<NvmlSymbol> wanted_;
};

}  // namespace gt
