#include "sources/nvml/nvml_fabric.h"

#include <cstdio>
#include <cstring>

namespace gt {

std::string uuid_text(const unsigned char b[16]) {
  char out[37];
  snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
           b[14], b[15]);
  return out;
}

namespace {

/// NVML's state; a number this version cannot name is kUnknown with it.
void set_state(unsigned char s, FabricInfo& f) {
  switch (s) {
    case NVML_GPU_FABRIC_STATE_NOT_SUPPORTED:
      f.state = FabricState::kNotSupported;
      return;
    case NVML_GPU_FABRIC_STATE_NOT_STARTED:
      f.state = FabricState::kNotStarted;
      return;
    case NVML_GPU_FABRIC_STATE_IN_PROGRESS:
      f.state = FabricState::kInProgress;
      return;
    case NVML_GPU_FABRIC_STATE_COMPLETED:
      f.state = FabricState::kCompleted;
      return;
  }
  f.state = FabricState::kUnknown;
  f.state_code = s;
}

/// A 2-bit health field: 1 -> true (the bad condition holds), 2 -> false,
/// 0 (not supported by this driver/GPU) or 3 (undefined) -> unknown.
std::optional<bool> health_bit(uint32_t mask, int shift) {
  switch ((mask >> shift) & NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT) {
    case 1:
      return true;
    case 2:
      return false;
  }
  return std::nullopt;
}

std::optional<std::string> incorrect_configuration(uint32_t mask) {
  static const char* const kNames[] = {nullptr,
                                       "none",
                                       "wrong_sysguid",
                                       "wrong_chassis_serial",
                                       "no_partition",
                                       "insufficient_nvlinks",
                                       "incompatible_gpu_firmware",
                                       "invalid_location",
                                       "gpu_state_invalid"};
  uint32_t v = (mask >> NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION) &
               NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION;
  if (v == 0) return std::nullopt;  // not reported by this driver
  if (v < sizeof kNames / sizeof kNames[0]) return kNames[v];
  return "unknown(" + std::to_string(v) + ")";
}

/// The v3 health summary; NOT_SUPPORTED leaves it null.
void set_summary(unsigned char s, FabricInfo& f) {
  switch (s) {
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED:
      return;
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY:
      f.health_summary = FabricHealthSummary::kHealthy;
      return;
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY:
      f.health_summary = FabricHealthSummary::kUnhealthy;
      return;
    case NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY:
      f.health_summary = FabricHealthSummary::kLimitedCapacity;
      return;
  }
  f.health_summary = FabricHealthSummary::kUnknown;
  f.health_summary_code = s;
}

void decode_health(uint32_t m, FabricInfo& f) {
  f.health_mask = m;
  f.bandwidth_degraded = health_bit(m, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW);
  f.route_recovery_in_progress = health_bit(m, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY);
  f.route_unhealthy = health_bit(m, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY);
  f.access_timeout_recovery =
      health_bit(m, NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY);
  f.incorrect_configuration = incorrect_configuration(m);
}

}  // namespace

std::optional<FabricInfo> decode_fabric(const FabricRead& r) {
  if (r.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) return std::nullopt;
  FabricInfo f;
  set_state(r.state, f);
  if (r.state == NVML_GPU_FABRIC_STATE_COMPLETED) {
    // status, clique and cluster are only filled once registration is done.
    f.status = r.status == NVML_SUCCESS ? "success" : NvmlLibrary::return_name(r.status);
    f.clique_id = std::to_string(r.clique_id);
    static const unsigned char kZero[16] = {};
    if (std::memcmp(r.cluster_uuid, kZero, 16) != 0) f.cluster_uuid = uuid_text(r.cluster_uuid);
  }
  if (r.health_mask) decode_health(*r.health_mask, f);
  if (r.health_summary) set_summary(*r.health_summary, f);
  return f;
}

namespace {

template <typename T>
FabricRead from_versioned(const T& s) {
  FabricRead r;
  r.state = s.state;
  r.status = s.status;
  r.clique_id = s.cliqueId;
  std::memcpy(r.cluster_uuid, s.clusterUuid, 16);
  r.health_mask = s.healthMask;
  return r;
}

/// The versioned call: v3, then v2. true when it gave an answer (a read, or
/// a verdict such as NOT_SUPPORTED) and the old call must not be tried.
bool read_versioned(NvmlCaller& c, nvmlDevice_t dev, std::optional<FabricRead>& out) {
  const auto& fn = c.api().fabric_info_v;
  nvmlGpuFabricInfo_v3_t v3{};
  v3.version = nvmlGpuFabricInfo_v3;
  std::optional<nvmlReturn_t> r = c.raw(fn, dev, static_cast<void*>(&v3));
  if (!r) return c.lost();
  if (*r == NVML_SUCCESS) {
    out = from_versioned(v3);
    out->health_summary = v3.healthSummary;
    return true;
  }
  if (*r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {  // a 12.4-12.9 driver
    nvmlGpuFabricInfo_v2_t v2{};
    v2.version = nvmlGpuFabricInfo_v2;
    r = c.raw(fn, dev, static_cast<void*>(&v2));
    if (!r) return true;
    if (*r == NVML_SUCCESS) {
      out = from_versioned(v2);
      return true;
    }
    if (*r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) return false;
  }
  c.check(fn.symbol, *r);
  return true;
}

}  // namespace

void read_fabric(NvmlCaller& c, nvmlDevice_t dev) {
  std::optional<FabricRead> read;
  if (!read_versioned(c, dev, read)) {
    nvmlGpuFabricInfo_t v1{};
    if (c.call(c.api().fabric_info, dev, &v1)) {
      read.emplace();
      read->state = v1.state;
      read->status = v1.status;
      read->clique_id = v1.cliqueId;
      std::memcpy(read->cluster_uuid, v1.clusterUuid, 16);
    }
  }
  if (read) c.gpu().fabric = decode_fabric(*read);
}

}  // namespace gt
