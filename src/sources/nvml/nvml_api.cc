// Loading libnvidia-ml and resolving its entry points.
//
// The header #defines unversioned names to the newest version (nvmlInit ->
// nvmlInit_v2, nvmlDeviceGetPciInfo -> _v3, process calls -> _v3), but through
// dlsym we must ask for the versioned string ourselves. The old names are
// still exported and behave the old way, so we try newest first.
//
// One ABI hazard needs a run-time decision: early R535 drivers (535.54.03,
// CUDA 12.2 GA) wrote a 32-byte process record through the _v3 calls without
// a version bump. Like nvitop, we detect them by their exports: _v3 and
// nvmlDeviceGetConfComputeMemSizeInfo present but
// nvmlDeviceGetRunningProcessDetailList absent.
#include "sources/nvml/nvml_api.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <initializer_list>

#include "sources/nvml/nvml_abi_desc.h"
#include "util/real_path.h"

namespace gt {
namespace {

struct Resolver {
  void* handle;
  std::vector<std::string>* missing;
  std::vector<NvmlSymbol>* wanted;
  bool required = false;

  /// Returns the first exported symbol among `names`; records the newest
  /// name as missing when none is exported.
  /// Every newer name skipped on the way is recorded as missing, so the
  /// report shows which fallbacks an old driver forced.
  template <typename Sig>
  NvmlFn<Sig> find(std::initializer_list<const char*> names) {
    for (const char* name : names) wanted->push_back({name, abi::describe_type<Sig>(), required});
    for (const char* name : names) {
      if (void* p = dlsym(handle, name)) {
        NvmlFn<Sig> f;
        f.fn = reinterpret_cast<Sig*>(p);
        f.symbol = name;
        return f;
      }
      missing->push_back(name);
    }
    return {};
  }
  /// Whether `name` is exported; a feature probe, never called.
  bool has(const char* name) const {
    wanted->push_back({name, "", required});
    return dlsym(handle, name) != nullptr;
  }
};

std::string real_file_of(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr)
    return {};
  return real_path(map->l_name).value_or(map->l_name);
}

void resolve_processes(Resolver& r, NvmlApi& api) {
  using P = DevFnProcs;
  api.compute_processes = r.find<P>({"nvmlDeviceGetComputeRunningProcesses_v3",
                                     "nvmlDeviceGetComputeRunningProcesses_v2",
                                     "nvmlDeviceGetComputeRunningProcesses"});
  api.graphics_processes = r.find<P>({"nvmlDeviceGetGraphicsRunningProcesses_v3",
                                      "nvmlDeviceGetGraphicsRunningProcesses_v2",
                                      "nvmlDeviceGetGraphicsRunningProcesses"});
  const char* sym = api.compute_processes ? api.compute_processes.symbol : "";
  std::string s = sym;
  if (s.ends_with("_v3")) {
    bool early_r535 = r.has("nvmlDeviceGetConfComputeMemSizeInfo") &&
                      !r.has("nvmlDeviceGetRunningProcessDetailList");
    api.process_record_bytes = early_r535 ? 32 : 24;
  } else if (s.ends_with("_v2")) {
    api.process_record_bytes = 24;
  } else if (!s.empty()) {
    api.process_record_bytes = 16;
  }
}

void resolve_signals(Resolver& r, NvmlApi& api) {
  api.field_values =
      r.find<nvmlReturn_t(nvmlDevice_t, int, nvmlFieldValue_t*)>({"nvmlDeviceGetFieldValues"});
  api.row_remapper_histogram =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlRowRemapperHistogramValues_t*)>(
          {"nvmlDeviceGetRowRemapperHistogram"});
  api.temperature_threshold =
      r.find<nvmlReturn_t(nvmlDevice_t, int, unsigned*)>({"nvmlDeviceGetTemperatureThreshold"});
  api.margin_temperature = r.find<nvmlReturn_t(nvmlDevice_t, nvmlMarginTemperature_v1_t*)>(
      {"nvmlDeviceGetMarginTemperature"});
  api.violation_status = r.find<nvmlReturn_t(nvmlDevice_t, int, nvmlViolationTime_t*)>(
      {"nvmlDeviceGetViolationStatus"});
  // Two slots, not one fallback list: the versioned call may reject both
  // struct versions we know, and then the old call is still worth a try.
  api.fabric_info_v = r.find<nvmlReturn_t(nvmlDevice_t, void*)>({"nvmlDeviceGetGpuFabricInfoV"});
  api.fabric_info =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlGpuFabricInfo_t*)>({"nvmlDeviceGetGpuFabricInfo"});
}

void resolve_links_and_mig(Resolver& r, NvmlApi& api) {
  using LinkInt = nvmlReturn_t(nvmlDevice_t, unsigned, int*);
  api.nvlink_state = r.find<LinkInt>({"nvmlDeviceGetNvLinkState"});
  api.nvlink_version =
      r.find<nvmlReturn_t(nvmlDevice_t, unsigned, unsigned*)>({"nvmlDeviceGetNvLinkVersion"});
  api.nvlink_remote_pci = r.find<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlPciInfo_t*)>(
      {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"});
  api.nvlink_remote_device_type = r.find<LinkInt>({"nvmlDeviceGetNvLinkRemoteDeviceType"});
  api.nvlink_error_counter = r.find<nvmlReturn_t(nvmlDevice_t, unsigned, int, unsigned long long*)>(
      {"nvmlDeviceGetNvLinkErrorCounter"});
  api.topology_common_ancestor = r.find<nvmlReturn_t(nvmlDevice_t, nvmlDevice_t, int*)>(
      {"nvmlDeviceGetTopologyCommonAncestor"});
  api.p2p_status =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlDevice_t, int, int*)>({"nvmlDeviceGetP2PStatus"});
  api.max_mig_device_count = r.find<DevFnU>({"nvmlDeviceGetMaxMigDeviceCount"});
  api.mig_device_handle_by_index = r.find<nvmlReturn_t(nvmlDevice_t, unsigned, nvmlDevice_t*)>(
      {"nvmlDeviceGetMigDeviceHandleByIndex"});
  api.gpu_instance_id = r.find<DevFnU>({"nvmlDeviceGetGpuInstanceId"});
  api.compute_instance_id = r.find<DevFnU>({"nvmlDeviceGetComputeInstanceId"});
}

/// Only the _v2 wait: the legacy one writes the 24-byte struct of old
/// headers, which our 32-byte nvmlEventData_t is not.
void resolve_events(Resolver& r, NvmlApi& api) {
  api.event_set_create = r.find<nvmlReturn_t(nvmlEventSet_t*)>({"nvmlEventSetCreate"});
  api.register_events = r.find<nvmlReturn_t(nvmlDevice_t, unsigned long long, nvmlEventSet_t)>(
      {"nvmlDeviceRegisterEvents"});
  api.event_set_wait =
      r.find<nvmlReturn_t(nvmlEventSet_t, nvmlEventData_t*, unsigned)>({"nvmlEventSetWait_v2"});
  api.event_set_free = r.find<nvmlReturn_t(nvmlEventSet_t)>({"nvmlEventSetFree"});
}

void resolve_optional(Resolver& r, NvmlApi& api) {
  api.error_string = r.find<const char*(nvmlReturn_t)>({"nvmlErrorString"});
  api.driver_version = r.find<nvmlReturn_t(char*, unsigned)>({"nvmlSystemGetDriverVersion"});
  api.nvml_version = r.find<nvmlReturn_t(char*, unsigned)>({"nvmlSystemGetNVMLVersion"});
  api.cuda_driver_version = r.find<nvmlReturn_t(int*)>(
      {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  api.name = r.find<DevFnStr>({"nvmlDeviceGetName"});
  api.uuid = r.find<DevFnStr>({"nvmlDeviceGetUUID"});
  api.serial = r.find<DevFnStr>({"nvmlDeviceGetSerial"});
  api.vbios_version = r.find<DevFnStr>({"nvmlDeviceGetVbiosVersion"});
  api.board_part_number = r.find<DevFnStr>({"nvmlDeviceGetBoardPartNumber"});
  api.pci_info = r.find<nvmlReturn_t(nvmlDevice_t, nvmlPciInfo_t*)>(
      {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"});
  api.memory_v2 =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlMemory_v2_t*)>({"nvmlDeviceGetMemoryInfo_v2"});
  api.memory_v1 = r.find<nvmlReturn_t(nvmlDevice_t, nvmlMemory_t*)>({"nvmlDeviceGetMemoryInfo"});
  api.utilization =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)>({"nvmlDeviceGetUtilizationRates"});
  api.temperature_v =
      r.find<nvmlReturn_t(nvmlDevice_t, nvmlTemperature_v1_t*)>({"nvmlDeviceGetTemperatureV"});
  api.temperature =
      r.find<nvmlReturn_t(nvmlDevice_t, int, unsigned*)>({"nvmlDeviceGetTemperature"});
  api.power_usage = r.find<DevFnU>({"nvmlDeviceGetPowerUsage"});
  api.enforced_power_limit = r.find<DevFnU>({"nvmlDeviceGetEnforcedPowerLimit"});
  api.power_management_limit = r.find<DevFnU>({"nvmlDeviceGetPowerManagementLimit"});
  api.performance_state =
      r.find<nvmlReturn_t(nvmlDevice_t, int*)>({"nvmlDeviceGetPerformanceState"});
  api.fan_speed = r.find<DevFnU>({"nvmlDeviceGetFanSpeed"});
  api.persistence_mode = r.find<nvmlReturn_t(nvmlDevice_t, int*)>({"nvmlDeviceGetPersistenceMode"});
  api.compute_mode = r.find<nvmlReturn_t(nvmlDevice_t, int*)>({"nvmlDeviceGetComputeMode"});
  api.mig_mode = r.find<nvmlReturn_t(nvmlDevice_t, unsigned*, unsigned*)>({"nvmlDeviceGetMigMode"});
  api.ecc_mode = r.find<nvmlReturn_t(nvmlDevice_t, int*, int*)>({"nvmlDeviceGetEccMode"});
  api.total_ecc_errors = r.find<nvmlReturn_t(nvmlDevice_t, int, int, unsigned long long*)>(
      {"nvmlDeviceGetTotalEccErrors"});
  api.retired_pages = r.find<nvmlReturn_t(nvmlDevice_t, int, unsigned*, unsigned long long*)>(
      {"nvmlDeviceGetRetiredPages"});
  api.retired_pages_pending =
      r.find<nvmlReturn_t(nvmlDevice_t, int*)>({"nvmlDeviceGetRetiredPagesPendingStatus"});
  api.remapped_rows =
      r.find<nvmlReturn_t(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>(
          {"nvmlDeviceGetRemappedRows"});
  api.pcie_curr_gen = r.find<DevFnU>({"nvmlDeviceGetCurrPcieLinkGeneration"});
  api.pcie_max_gen = r.find<DevFnU>({"nvmlDeviceGetMaxPcieLinkGeneration"});
  api.pcie_gpu_max_gen = r.find<DevFnU>({"nvmlDeviceGetGpuMaxPcieLinkGeneration"});
  api.pcie_curr_width = r.find<DevFnU>({"nvmlDeviceGetCurrPcieLinkWidth"});
  api.pcie_max_width = r.find<DevFnU>({"nvmlDeviceGetMaxPcieLinkWidth"});
  api.pcie_replay_counter = r.find<DevFnU>({"nvmlDeviceGetPcieReplayCounter"});
  api.clock_reasons = r.find<DevFnULL>(
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  api.clock_reasons_supported = r.find<DevFnULL>(
      {"nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons"});
  resolve_signals(r, api);
  resolve_events(r, api);
  resolve_links_and_mig(r, api);
  resolve_processes(r, api);
}

}  // namespace

Result<std::shared_ptr<NvmlLibrary>> NvmlLibrary::open(const std::string& path) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error{ErrorKind::kNotFound, "cannot load the NVIDIA management library " + path + ": " +
                                           (why ? why : "unknown dlopen error")};
  }
  std::shared_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  lib->requested_path_ = path;
  lib->real_file_ = real_file_of(handle);
  Resolver r{handle, &lib->missing_, &lib->wanted_};
  NvmlApi& api = lib->api_;
  std::vector<std::string> required_missing;
  Resolver req{handle, &required_missing, &lib->wanted_, true};
  auto required_failed = [&] {
    // The fallbacks leave names behind; only a slot left empty counts.
    return !api.init || !api.shutdown || !api.device_count || !api.handle_by_index;
  };
  api.init = req.find<nvmlReturn_t()>({"nvmlInit_v2", "nvmlInit"});
  api.shutdown = req.find<nvmlReturn_t()>({"nvmlShutdown"});
  api.device_count =
      req.find<nvmlReturn_t(unsigned*)>({"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  api.handle_by_index = req.find<nvmlReturn_t(unsigned, nvmlDevice_t*)>(
      {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  if (required_failed()) {
    std::string names;
    for (const std::string& n : required_missing) names += (names.empty() ? "" : ", ") + n;
    return Error{ErrorKind::kLibraryError,
                 lib->real_file_ + " is not a usable NVML library: it lacks " + names};
  }
  resolve_optional(r, api);
  return lib;
}

std::string NvmlLibrary::return_name(nvmlReturn_t r) {
  static const char* const kNames[] = {"NVML_SUCCESS",
                                       "NVML_ERROR_UNINITIALIZED",
                                       "NVML_ERROR_INVALID_ARGUMENT",
                                       "NVML_ERROR_NOT_SUPPORTED",
                                       "NVML_ERROR_NO_PERMISSION",
                                       "NVML_ERROR_ALREADY_INITIALIZED",
                                       "NVML_ERROR_NOT_FOUND",
                                       "NVML_ERROR_INSUFFICIENT_SIZE",
                                       "NVML_ERROR_INSUFFICIENT_POWER",
                                       "NVML_ERROR_DRIVER_NOT_LOADED",
                                       "NVML_ERROR_TIMEOUT",
                                       "NVML_ERROR_IRQ_ISSUE",
                                       "NVML_ERROR_LIBRARY_NOT_FOUND",
                                       "NVML_ERROR_FUNCTION_NOT_FOUND",
                                       "NVML_ERROR_CORRUPTED_INFOROM",
                                       "NVML_ERROR_GPU_IS_LOST",
                                       "NVML_ERROR_RESET_REQUIRED",
                                       "NVML_ERROR_OPERATING_SYSTEM",
                                       "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
                                       "NVML_ERROR_IN_USE",
                                       "NVML_ERROR_MEMORY",
                                       "NVML_ERROR_NO_DATA",
                                       "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
                                       "NVML_ERROR_INSUFFICIENT_RESOURCES",
                                       "NVML_ERROR_FREQ_NOT_SUPPORTED",
                                       "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
                                       "NVML_ERROR_DEPRECATED",
                                       "NVML_ERROR_NOT_READY",
                                       "NVML_ERROR_GPU_NOT_FOUND",
                                       "NVML_ERROR_INVALID_STATE",
                                       "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED"};
  if (r >= 0 && r < static_cast<int>(sizeof kNames / sizeof kNames[0])) return kNames[r];
  if (r == NVML_ERROR_UNKNOWN) return "NVML_ERROR_UNKNOWN";
  return "NVML_ERROR_" + std::to_string(r);
}

std::string NvmlLibrary::describe(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS:
      return "success";
    case NVML_ERROR_NOT_SUPPORTED:
      return "not supported on this GPU";
    case NVML_ERROR_NO_PERMISSION:
      return "no permission";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "the NVIDIA kernel driver is not loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "the GPU is lost (fell off the bus or is otherwise unreachable)";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "driver/library version mismatch: the user-space NVML library and the kernel module "
             "differ";
    case NVML_ERROR_RESET_REQUIRED:
      return "the GPU needs a reset";
    case NVML_ERROR_INSUFFICIENT_POWER:
      return "external power cables are not attached";
    case NVML_ERROR_IRQ_ISSUE:
      return "the kernel detected an interrupt problem with the GPU";
    case NVML_ERROR_TIMEOUT:
      return "timed out";
    case NVML_ERROR_UNKNOWN:
      return "unknown error";
    default:
      return return_name(r);
  }
}

}  // namespace gt
