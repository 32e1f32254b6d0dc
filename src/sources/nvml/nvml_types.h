// Our own declarations of the NVML subset gpu-triage uses.
//
// There is no nvml.h on our build machines and we never link libnvidia-ml:
// the library is dlopen()ed at run time so the binary starts, and explains
// itself, on a node whose driver is missing or broken. Every layout below was
// taken from docs/reference (NVIDIA's nvml.h as vendored by go-nvml, NVML API
// 13) and is LP64. The comment on each item names the NVML version that
// introduced it; older drivers simply do not export the newer symbols.
//
// This header is shared with tests/mock_nvml so the mock and the tool agree
// on every struct by construction.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvmlDevice_st* nvmlDevice_t;
typedef int nvmlReturn_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
  NVML_ERROR_NOT_READY = 27,
  NVML_ERROR_GPU_NOT_FOUND = 28,
  NVML_ERROR_INVALID_STATE = 29,
  NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
  NVML_ERROR_UNKNOWN = 999,
};

// String buffer sizes, NUL included. Always pass the V2 sizes.
enum {
  NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96,
  NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96,
  NVML_DEVICE_SERIAL_BUFFER_SIZE = 30,
  NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80,
  NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80,
  NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32,
  NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16,
};

/// nvmlDeviceGetPciInfo_v3 (<= NVML 11.0). 68 bytes.
typedef struct {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  // (deviceId << 16) | vendorId
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:19:00.0"
} nvmlPciInfo_t;

/// nvmlDeviceGetMemoryInfo (v1). Note the order: total, free, used.
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

/// nvmlDeviceGetMemoryInfo_v2 (NVML 11.6, R510). `used` includes reserved.
typedef struct {
  unsigned int version;  // nvmlMemory_v2
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

typedef struct {
  unsigned int gpu;     // % of time a kernel ran
  unsigned int memory;  // % of time memory was read or written
} nvmlUtilization_t;

/// Unversioned process calls (16 bytes).
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/// _v2 (NVML 11.1) and _v3 (NVML 11.6) process calls (24 bytes).
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

/// What early R535 drivers (CUDA 12.2 GA header) wrote through _v3: 32 bytes.
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessInfo_r535_t;

/// nvmlDeviceGetTemperatureV (NVML 12.8, R570). 12 bytes.
typedef struct {
  unsigned int version;  // nvmlTemperature_v1
  int sensorType;        // NVML_TEMPERATURE_GPU
  int temperature;       // signed, degrees C
} nvmlTemperature_v1_t;
#define nvmlTemperature_v1 ((unsigned int)(sizeof(nvmlTemperature_v1_t) | (1u << 24)))

enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum {
  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
  NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
};
enum {
  NVML_COMPUTEMODE_DEFAULT = 0,
  NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
  NVML_COMPUTEMODE_PROHIBITED = 2,
  NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
};
enum { NVML_PSTATE_UNKNOWN = 32 };

// Clock event ("throttle") reason bits; same values under both names.
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x1ULL
#define NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS_SETTING 0x2ULL
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ULL
#define NVML_CLOCKS_THROTTLE_HW_SLOWDOWN 0x8ULL
#define NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ULL
#define NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN 0x20ULL
#define NVML_CLOCKS_THROTTLE_HW_THERMAL_SLOWDOWN 0x40ULL
#define NVML_CLOCKS_THROTTLE_HW_POWER_BRAKE_SLOWDOWN 0x80ULL
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING 0x100ULL

// NVML_VALUE_NOT_AVAILABLE in an unsigned long long field (WDDM memory).
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL

#ifdef __cplusplus
}  // extern "C"
#endif
