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

#include <stddef.h>
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
  NVML_DEVICE_PART_NUMBER_BUFFER_SIZE = 80,
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

// ---------------------------------------------------------------------------
// Driver health signals (nvml-abi.md section 8).

/// nvmlDeviceGetFieldValues (<= 11.0): 40 bytes, align 8. `value` is
/// undefined unless the element's own nvmlReturn is SUCCESS.
typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;             // 12.2+
  unsigned short usVal;  // 12.6+
} nvmlValue_t;

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;  // CPU time, microseconds since 1970
  long long latencyUsec;
  int valueType;  // NVML_VALUE_TYPE_*
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

enum {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

// Field ids (section 8.1). Ids we never need are left out on purpose.
enum {
  NVML_FI_DEV_PERF_POLICY_POWER = 74,  // violation time, ns (never moved)
  NVML_FI_DEV_PERF_POLICY_SYNC_BOOST = 76,
  NVML_FI_DEV_MEMORY_TEMP = 82,
  NVML_FI_DEV_RESET_STATUS = 226,             // 12.6, deprecated from 12.8
  NVML_FI_DEV_DRAIN_AND_RESET_STATUS = 227,   // 12.6, deprecated from 12.8
  NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230,  // 12.8
};

// Section 8.2: the three clock-event-reason time counters (ns) moved
// between headers. 12.9/13.0 (R575/R580: nvidia-smi 580 asks for exactly
// 251-253) versus 13.1+ (269-271). In the 12.8 header 251-268 are power
// smoothing, so the same number means a different thing per driver.
enum {
  NVML_FI_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN_R580 = 251,
  NVML_FI_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN_R580 = 252,
  NVML_FI_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN_R580 = 253,
  NVML_FI_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN_13_1 = 269,
  NVML_FI_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN_13_1 = 270,
  NVML_FI_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN_13_1 = 271,
};

/// nvmlDeviceGpuRecoveryAction_t (12.8). 5 is RECOVER_IMEX_DOMAIN in the
/// 13.3 header but GPU_RESET_BUS in nvidia-ml-py: ambiguous (section 8.3).
enum {
  NVML_GPU_RECOVERY_ACTION_NONE = 0,
  NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
  NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2,
  NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
  NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4,
  NVML_GPU_RECOVERY_ACTION_BUS_RESET = 6,      // cuda-python docs only
  NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT = 7,  // cuda-python docs only
};

/// nvmlDeviceGetRowRemapperHistogram (11.1): banks by spare rows left.
typedef struct {
  unsigned int max;
  unsigned int high;
  unsigned int partial;
  unsigned int low;
  unsigned int none;
} nvmlRowRemapperHistogramValues_t;

/// nvmlDeviceGetViolationStatus (<= 11.0, deprecated 13.0).
typedef struct {
  unsigned long long referenceTime;  // CPU microseconds
  unsigned long long violationTime;  // cumulative ns
} nvmlViolationTime_t;

enum {
  NVML_PERF_POLICY_POWER = 0,
  NVML_PERF_POLICY_THERMAL = 1,
  NVML_PERF_POLICY_SYNC_BOOST = 2,
  NVML_PERF_POLICY_BOARD_LIMIT = 3,
  NVML_PERF_POLICY_LOW_UTILIZATION = 4,
  NVML_PERF_POLICY_RELIABILITY = 5,
};

/// nvmlTemperatureThresholds_t (0-3 in every header we support).
enum {
  NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
  NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
  NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
  NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
};

/// nvmlDeviceGetMarginTemperature (12.8): degrees C to the nearest
/// slowdown threshold. 8 bytes.
typedef struct {
  unsigned int version;   // nvmlMarginTemperature_v1
  int marginTemperature;  // signed
} nvmlMarginTemperature_v1_t;
#define nvmlMarginTemperature_v1 ((unsigned int)(sizeof(nvmlMarginTemperature_v1_t) | (1u << 24)))

/// nvmlDeviceGetGpuFabricInfo (12.0, deprecated 13.0): 28 bytes.
typedef struct {
  unsigned char clusterUuid[16];  // raw bytes, not text
  nvmlReturn_t status;            // meaningful once state is COMPLETED
  unsigned int cliqueId;          // "partitionId" in 12.0-12.2
  unsigned char state;            // NVML_GPU_FABRIC_STATE_*
} nvmlGpuFabricInfo_t;

/// nvmlDeviceGetGpuFabricInfoV with version 2 (12.4): 36 bytes.
typedef struct {
  unsigned int version;  // nvmlGpuFabricInfo_v2
  unsigned char clusterUuid[16];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
#define nvmlGpuFabricInfo_v2 ((unsigned int)(sizeof(nvmlGpuFabricInfo_v2_t) | (2u << 24)))

/// Version 3 (13.0): v2 plus healthSummary. 40 bytes.
typedef struct {
  unsigned int version;  // nvmlGpuFabricInfo_v3
  unsigned char clusterUuid[16];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
  unsigned char healthSummary;  // NVML_GPU_FABRIC_HEALTH_SUMMARY_*
} nvmlGpuFabricInfo_v3_t;
#define nvmlGpuFabricInfo_v3 ((unsigned int)(sizeof(nvmlGpuFabricInfo_v3_t) | (3u << 24)))

enum {
  NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
  NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2,
  NVML_GPU_FABRIC_STATE_COMPLETED = 3,
};
enum {
  NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY = 1,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY = 2,
  NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY = 3,
};
// healthMask fields: (mask >> SHIFT) & WIDTH; 0 always means "not supported".
enum {
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW = 0,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY = 2,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY = 4,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY = 6,
  NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION = 8,
  NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT = 0x3,
  NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION = 0xF,
};

// NVLink (section 8.5). 36 in the 13.3 header (12 and 18 before): a bound
// for the loop only; the loop stops at the first link the driver rejects.
enum { NVML_NVLINK_MAX_LINKS = 36 };
enum {
  NVML_NVLINK_ERROR_DL_REPLAY = 0,
  NVML_NVLINK_ERROR_DL_RECOVERY = 1,
  NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
  NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
};
enum {
  NVML_NVLINK_DEVICE_TYPE_GPU = 0,
  NVML_NVLINK_DEVICE_TYPE_IBMNPU = 1,
  NVML_NVLINK_DEVICE_TYPE_SWITCH = 2,
  NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF,
};

// Topology between two GPUs (nvmlDeviceGetTopologyCommonAncestor, <= 11.0):
// the closest thing both sit under. nvidia-smi topo -m prints them as PIX,
// PXB, PHB, NODE and SYS; NVML_TOPOLOGY_CPU is an old alias of NODE.
enum {
  NVML_TOPOLOGY_INTERNAL = 0,
  NVML_TOPOLOGY_SINGLE = 10,
  NVML_TOPOLOGY_MULTIPLE = 20,
  NVML_TOPOLOGY_HOSTBRIDGE = 30,
  NVML_TOPOLOGY_NODE = 40,
  NVML_TOPOLOGY_SYSTEM = 50,
};
// Peer-to-peer between two GPUs (nvmlDeviceGetP2PStatus, <= 11.0): which
// capability is asked, and the answer. NVIDIA spells the first failure
// CHIPSET_NOT_SUPPORED (and aliases the right spelling since 12.x).
enum {
  NVML_P2P_CAPS_INDEX_READ = 0,
  NVML_P2P_CAPS_INDEX_WRITE = 1,
  NVML_P2P_CAPS_INDEX_NVLINK = 2,
  NVML_P2P_CAPS_INDEX_ATOMICS = 3,
};
enum {
  NVML_P2P_STATUS_OK = 0,
  NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED = 1,
  NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
  NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
  NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
  NVML_P2P_STATUS_NOT_SUPPORTED = 5,
  NVML_P2P_STATUS_UNKNOWN = 6,
};

// MIG (section 8.9): instance ids of a non-MIG process record.
#define NVML_MIG_ID_NONE 0xFFFFFFFFu

// ---------------------------------------------------------------------------
// Event sets (nvml-abi.md section 3 "Events", section 4; <= NVML 11.0):
// `gpu-triage watch` waits on them for Xids, ECC and clock/power events.

typedef struct nvmlEventSet_st* nvmlEventSet_t;

/// nvmlEventData_t with the MIG fields (NVML 11+, used with
/// nvmlEventSetWait_v2): 32 bytes. eventData is the Xid for Xid events
/// (999: unknown Xid), else 0. The instance ids are 0xFFFFFFFF unless the
/// Xid is attributed to a MIG instance.
typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;  // one nvmlEventType* bit
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

// nvmlEventType* bits (u64), values as NVIDIA's nvml.h.
#define nvmlEventTypeSingleBitEccError 0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002ULL
#define nvmlEventTypePState 0x0000000000000004ULL
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL
#define nvmlEventTypeClock 0x0000000000000010ULL  // Kepler only
#define nvmlEventTypePowerSourceChange 0x0000000000000080ULL
#define nvmlEventMigConfigChange 0x0000000000000100ULL
#define nvmlEventTypeNone 0x0000000000000000ULL

#ifdef __cplusplus
static_assert(sizeof(nvmlFieldValue_t) == 40, "nvml-abi 4: nvmlFieldValue_t is 40 bytes");
static_assert(offsetof(nvmlFieldValue_t, scopeId) == 4, "nvml-abi 8.1");
static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8, "nvml-abi 8.1");
static_assert(offsetof(nvmlFieldValue_t, latencyUsec) == 16, "nvml-abi 8.1");
static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvml-abi 8.1");
static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "nvml-abi 8.1");
static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvml-abi 8.1");
static_assert(sizeof(nvmlRowRemapperHistogramValues_t) == 20, "nvml-abi 4");
static_assert(sizeof(nvmlViolationTime_t) == 16, "nvml-abi 4");
static_assert(sizeof(nvmlMarginTemperature_v1_t) == 8, "nvml-abi 4");
static_assert(nvmlMarginTemperature_v1 == 0x01000008u, "nvml-abi 8.6");
static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_t, status) == 16, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_t, cliqueId) == 20, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_t, state) == 24, "nvml-abi 4");
static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36, "nvml-abi 4");
static_assert(nvmlGpuFabricInfo_v2 == 0x02000024u, "nvml-abi 8.4");
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, clusterUuid) == 4, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, status) == 20, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, cliqueId) == 24, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, state) == 28, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, healthMask) == 32, "nvml-abi 4");
static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "nvml-abi 4");
static_assert(nvmlGpuFabricInfo_v3 == 0x03000028u, "nvml-abi 8.4");
static_assert(offsetof(nvmlGpuFabricInfo_v3_t, healthMask) == 32, "nvml-abi 4");
static_assert(offsetof(nvmlGpuFabricInfo_v3_t, healthSummary) == 36, "nvml-abi 8.4");
static_assert(sizeof(nvmlPciInfo_t) == 68, "nvml-abi 4");
static_assert(sizeof(nvmlEventData_t) == 32, "nvml-abi 4");
static_assert(offsetof(nvmlEventData_t, eventData) == 16, "nvml-abi 4");
static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24, "nvml-abi 4");
static_assert(sizeof(nvmlMemory_v2_t) == 40 && nvmlMemory_v2 == 0x02000028u, "nvml-abi 4");
#endif

#ifdef __cplusplus
}  // extern "C"
#endif
