// Mock libnvidia-ml.so.1 driven by a JSON scenario (tests/scenarios/README.md).
//
// One source, three builds selected by a compile definition:
//   MOCK_NVML_VARIANT_CURRENT  R570+: every symbol below.
//   MOCK_NVML_VARIANT_R535     early R535, as 535.54.03 (CUDA 12.2 GA): _v3
//                              process calls write the 32-byte
//                              nvmlProcessInfo_r535_t; no DetailList, no
//                              TemperatureV. Later R535 drivers (Debian's
//                              535.261.03) also export
//                              nvmlDeviceGetRunningProcessDetailList and
//                              write 24 bytes; tests/nvidia/mock_exports.sh
//                              holds each variant to NVIDIA's libraries.
//   MOCK_NVML_VARIANT_R470     old driver: no _v3 process calls, no
//                              MemoryInfo_v2, no ClocksEvent names, no
//                              GpuMaxPcieLinkGeneration, no ConfCompute,
//                              no GpuFabricInfo(V), no MarginTemperature.
// Field ids past the variant's NVML_FI_MAX answer INVALID_ARGUMENT per
// element (MOCK_FI_MAX below); the current build emulates the 12.9/13.0
// numbering (251-253 = clock event reason time, as R575/R580 answer).
// Only the nvml* symbols are exported (-fvisibility=hidden plus a version
// script). No exception ever crosses the C boundary: every export runs its
// body through Guard().
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sources/nvml/nvml_types.h"
#include "util/json_depth.h"

#if defined(MOCK_NVML_VARIANT_CURRENT)
#define MOCK_HAS_V3_PROCESSES 1
#define MOCK_HAS_MEMORY_V2 1
#define MOCK_HAS_EVENT_REASONS 1
#define MOCK_HAS_TEMPERATURE_V 1
#define MOCK_HAS_GPU_MAX_PCIE_GEN 1
#define MOCK_HAS_CONF_COMPUTE 1
#define MOCK_HAS_DETAIL_LIST 1
#define MOCK_V3_RECORD nvmlProcessInfo_v2_t
#define MOCK_HAS_FABRIC_INFO 1         // 12.0
#define MOCK_HAS_FABRIC_INFO_V 1       // 12.4 (v2), v3 from 13.0
#define MOCK_HAS_MARGIN_TEMPERATURE 1  // 12.8
// Field ids: the 12.9/13.0 numbering (R575/R580), where 251-253 are the SW
// thermal / HW thermal / HW power brake time counters (nvml-abi 8.2).
#define MOCK_FI_MAX 274
#elif defined(MOCK_NVML_VARIANT_R535)
#define MOCK_HAS_V3_PROCESSES 1
#define MOCK_HAS_MEMORY_V2 1
#define MOCK_HAS_EVENT_REASONS 1
#define MOCK_HAS_GPU_MAX_PCIE_GEN 1
#define MOCK_HAS_CONF_COMPUTE 1
// The hazard under test: the CUDA 12.2 GA header grew nvmlProcessInfo_t to
// 32 bytes without renaming the _v3 symbol.
#define MOCK_V3_RECORD nvmlProcessInfo_r535_t
#define MOCK_HAS_FABRIC_INFO 1  // 12.0; no FabricInfoV (12.4), no margin (12.8)
#define MOCK_FI_MAX 197         // the 12.2 header: no 226/227/230/251+
#elif defined(MOCK_NVML_VARIANT_R470)
// Nothing newer than NVML 11.4: no fabric calls at all, no margin.
#define MOCK_FI_MAX 161
#else
#error "define one of MOCK_NVML_VARIANT_CURRENT, _R535, _R470"
#endif

#define MOCK_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using json = nlohmann::json;
using u64 = unsigned long long;

constexpr u64 kMiB = 1024ull * 1024ull;
constexpr unsigned kNoInstance = 0xFFFFFFFFu;

// ---------------------------------------------------------------------------
// Error codes by name.

const std::map<std::string, int>& ErrorNames() {
  static const auto* names = new std::map<std::string, int>{
      {"SUCCESS", NVML_SUCCESS},
      {"UNINITIALIZED", NVML_ERROR_UNINITIALIZED},
      {"INVALID_ARGUMENT", NVML_ERROR_INVALID_ARGUMENT},
      {"NOT_SUPPORTED", NVML_ERROR_NOT_SUPPORTED},
      {"NO_PERMISSION", NVML_ERROR_NO_PERMISSION},
      {"ALREADY_INITIALIZED", NVML_ERROR_ALREADY_INITIALIZED},
      {"NOT_FOUND", NVML_ERROR_NOT_FOUND},
      {"INSUFFICIENT_SIZE", NVML_ERROR_INSUFFICIENT_SIZE},
      {"INSUFFICIENT_POWER", NVML_ERROR_INSUFFICIENT_POWER},
      {"DRIVER_NOT_LOADED", NVML_ERROR_DRIVER_NOT_LOADED},
      {"TIMEOUT", NVML_ERROR_TIMEOUT},
      {"IRQ_ISSUE", NVML_ERROR_IRQ_ISSUE},
      {"LIBRARY_NOT_FOUND", NVML_ERROR_LIBRARY_NOT_FOUND},
      {"FUNCTION_NOT_FOUND", NVML_ERROR_FUNCTION_NOT_FOUND},
      {"CORRUPTED_INFOROM", NVML_ERROR_CORRUPTED_INFOROM},
      {"GPU_IS_LOST", NVML_ERROR_GPU_IS_LOST},
      {"RESET_REQUIRED", NVML_ERROR_RESET_REQUIRED},
      {"OPERATING_SYSTEM", NVML_ERROR_OPERATING_SYSTEM},
      {"LIB_RM_VERSION_MISMATCH", NVML_ERROR_LIB_RM_VERSION_MISMATCH},
      {"IN_USE", NVML_ERROR_IN_USE},
      {"MEMORY", NVML_ERROR_MEMORY},
      {"NO_DATA", NVML_ERROR_NO_DATA},
      {"VGPU_ECC_NOT_SUPPORTED", NVML_ERROR_VGPU_ECC_NOT_SUPPORTED},
      {"INSUFFICIENT_RESOURCES", NVML_ERROR_INSUFFICIENT_RESOURCES},
      {"FREQ_NOT_SUPPORTED", NVML_ERROR_FREQ_NOT_SUPPORTED},
      {"ARGUMENT_VERSION_MISMATCH", NVML_ERROR_ARGUMENT_VERSION_MISMATCH},
      {"DEPRECATED", NVML_ERROR_DEPRECATED},
      {"NOT_READY", NVML_ERROR_NOT_READY},
      {"GPU_NOT_FOUND", NVML_ERROR_GPU_NOT_FOUND},
      {"INVALID_STATE", NVML_ERROR_INVALID_STATE},
      {"RESET_TYPE_NOT_SUPPORTED", NVML_ERROR_RESET_TYPE_NOT_SUPPORTED},
      {"UNKNOWN", NVML_ERROR_UNKNOWN},
  };
  return *names;
}

const char* ErrorText(int code) {
  switch (code) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED:
      return "Already Initialized";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER:
      return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT:
      return "Timeout";
    case NVML_ERROR_IRQ_ISSUE:
      return "Interrupt request issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
      return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
      return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM:
      return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED:
      return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM:
      return "The operating system has blocked the request.";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "Driver/library version mismatch";
    case NVML_ERROR_IN_USE:
      return "In use by another client";
    case NVML_ERROR_MEMORY:
      return "Insufficient Memory";
    case NVML_ERROR_NO_DATA:
      return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
      return "The requested vgpu operation is not available on target "
             "device, because ECC is enabled";
    case NVML_ERROR_INSUFFICIENT_RESOURCES:
      return "Insufficient resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED:
      return "Frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
      return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED:
      return "Requested functionality has been deprecated";
    case NVML_ERROR_NOT_READY:
      return "System is not ready";
    case NVML_ERROR_GPU_NOT_FOUND:
      return "GPU not found";
    case NVML_ERROR_INVALID_STATE:
      return "Invalid state";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED:
      return "Reset type not supported";
    default:
      return "Unknown Error";
  }
}

// ---------------------------------------------------------------------------
// Scenario model. Everything optional maps "absent or null" to nullopt, which
// the getters turn into NVML_ERROR_NOT_SUPPORTED.

struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ProcType { kCompute, kGraphics, kBoth };

struct Process {
  unsigned pid = 0;
  bool track = false;       // liveness follows the host PID
  std::optional<u64> used;  // bytes; nullopt = NVML_VALUE_NOT_AVAILABLE
  ProcType type = ProcType::kCompute;
  unsigned gpu_instance_id = kNoInstance;
  unsigned compute_instance_id = kNoInstance;
  std::optional<std::string> name;  // for nvmlSystemGetProcessName
};

struct Pci {
  std::string bus_id;  // "00000000:19:00.0"
  unsigned domain = 0, bus = 0, device = 0;
  unsigned device_id = 0, subsystem_id = 0;
};

struct Memory {
  u64 total_mib = 0, reserved_mib = 0, used_mib = 0;
};

struct Utilization {
  std::vector<unsigned> gpu, memory;
};

struct Pair {
  unsigned current = 0, pending = 0;
};

struct Retired {
  unsigned single_bit = 0, double_bit = 0;
  bool pending = false;
};

struct Remapped {
  unsigned correctable = 0, uncorrectable = 0;
  bool pending = false, failure = false;
};

// A cumulative counter: base + per_s * seconds since nvmlInit, never below
// 0 (a negative rate makes it shrink: a counter reset, for tests).
struct Counter {
  double base = 0, per_s = 0;
};

// One field value: an element status, or a typed value.
struct FieldSpec {
  int ret = NVML_SUCCESS;
  int type = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  nvmlValue_t value{};
};

struct RowHistogram {
  unsigned max = 0, high = 0, partial = 0, low = 0, none = 0;
};

struct Fabric {
  unsigned char state = 0;
  int status = NVML_SUCCESS;
  unsigned clique_id = 0;
  unsigned char cluster_uuid[16] = {};
  unsigned health_mask = 0;
  unsigned char health_summary = 0;
  unsigned max_version = 3;  // the newest struct version the "driver" knows
};

struct Link {
  bool active = false;
  std::optional<unsigned> version;
  std::optional<Pci> remote;
  std::optional<int> remote_type;
  std::map<int, Counter> errors;  // by nvmlNvLinkErrorCounter_t
};

struct Device {
  unsigned index = 0;
  std::optional<std::string> name, uuid, serial, vbios_version, board_part_number;
  std::optional<Pci> pci;
  std::optional<Memory> memory;
  std::optional<Utilization> utilization;
  mutable std::atomic<u64> util_cursor{0};  // walks the samples
  std::optional<int> temperature_c;
  std::optional<unsigned> power_draw_mw, power_limit_mw, pstate, fan_speed_pct;
  std::optional<unsigned> persistence_mode, compute_mode;
  std::optional<Pair> mig_mode, ecc_mode;
  std::optional<json> ecc_errors;  // validated object of counters
  std::optional<Retired> retired_pages;
  std::optional<Remapped> remapped_rows;
  std::optional<unsigned> pcie_current_gen, pcie_max_gen, pcie_gpu_max_gen;
  std::optional<unsigned> pcie_current_width, pcie_max_width, pcie_replay;
  std::optional<u64> clock_reasons, clock_reasons_supported;
  std::vector<Process> processes;
  std::map<std::string, int> errors;
  bool lost = false;
  std::optional<std::string> hang_in;
  std::optional<int> handle_error;

  // Driver health signals (README "Driver signals").
  std::map<unsigned, FieldSpec> fields;  // explicit "fields" and named keys
  std::map<std::string, Counter> limit_time_ns;
  std::optional<RowHistogram> row_remapper_histogram;
  std::map<int, unsigned> temperature_thresholds;
  std::optional<int> margin_temperature_c;
  std::optional<Fabric> fabric;
  std::optional<std::vector<Link>> nvlinks;
  // MIG: the parent's slots (nullptr = empty), and a MIG device's own ids.
  std::optional<unsigned> max_mig_device_count;
  std::vector<std::unique_ptr<Device>> mig_devices;
  std::optional<unsigned> gpu_instance_id, compute_instance_id;

  // A timeline (README "Timelines"): the device as it is from `at_s`
  // seconds after the first nvmlInit on, each phase the JSON so far with a
  // merge patch applied; and the events NVML event sets deliver.
  std::vector<std::pair<double, std::unique_ptr<Device>>> phases;
  struct Event {
    double at_s = 0;
    unsigned long long type = 0, data = 0;
  };
  std::vector<Event> events;
};

// One pair's answers (symmetric: the pair i,j answers j,i the same).
struct PairTopology {
  std::optional<int> level;  // nvmlGpuTopologyLevel_t
  std::map<int, int> p2p;    // nvmlGpuP2PCapsIndex_t -> nvmlGpuP2PStatus_t
};

struct Scenario {
  std::string path;
  std::optional<int> init_error;
  bool init_hang = false;
  std::optional<unsigned> init_latency_ms;
  std::optional<std::string> driver_version, nvml_version;
  // NVIDIA's rule R1 (docs/physics.md): the module rejects a client of any
  // other release, so init fails with LIB_RM_VERSION_MISMATCH when the
  // library's release is not the loaded module's ("physics_exempt" with
  // "R1" lifts it for a parser case).
  std::optional<std::string> library_version, module_version;
  bool r1_exempt = false;
  std::optional<int> cuda_driver_version;
  std::map<std::string, unsigned> latency_ms;
  std::map<std::string, int> errors;  // system-level injection
  std::vector<std::unique_ptr<Device>> devices;
  // "topology": how each pair of devices reaches the other; nullopt (the
  // key absent) answers NOT_SUPPORTED for every pair.
  std::optional<std::map<std::pair<unsigned, unsigned>, PairTopology>> pairs;
  std::optional<PairTopology> pair_default;
  std::chrono::steady_clock::time_point started;  // counters grow from here
};

// ---------------------------------------------------------------------------
// JSON readers: each names the offending field on a type error.

const json* Field(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void TypeError(const std::string& where, const char* expected, const json& got) {
  throw ScenarioError(where + ": expected " + expected + ", got " + got.type_name() + " " +
                      got.dump());
}

const json* OptObject(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (v && !v->is_object()) TypeError(where + "." + key, "an object", *v);
  return v;
}

std::optional<std::string> OptString(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) TypeError(where + "." + key, "a string", *v);
  return v->get<std::string>();
}

std::optional<long long> OptInt(const json& obj, const char* key, const std::string& where,
                                long long min, long long max) {
  const json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) TypeError(where + "." + key, "an integer", *v);
  long long n = v->is_number_unsigned() ? static_cast<long long>(v->get<unsigned long long>())
                                        : v->get<long long>();
  if (n < min || n > max) {
    throw ScenarioError(where + "." + key + ": " + std::to_string(n) + " is out of range");
  }
  return n;
}

std::optional<unsigned> OptU32(const json& obj, const char* key, const std::string& where) {
  auto n = OptInt(obj, key, where, 0, 0xFFFFFFFFll);
  if (!n) return std::nullopt;
  return static_cast<unsigned>(*n);
}

// Ids and masks: a number or a hex string ("0x233010DE").
std::optional<u64> OptHex(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<u64>();
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    char* end = nullptr;
    errno = 0;
    u64 n = strtoull(s.c_str(), &end, 0);
    if (!s.empty() && end && *end == '\0' && errno == 0) return n;
  }
  TypeError(where + "." + key, "a number or hex string", *v);
}

// Booleans; 0/1 accepted too.
std::optional<unsigned> OptBool(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>() ? 1u : 0u;
  if (v->is_number_unsigned() && v->get<u64>() <= 1) {
    return static_cast<unsigned>(v->get<u64>());
  }
  TypeError(where + "." + key, "a boolean", *v);
}

int ParseErrorCode(const json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<int>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.rfind("NVML_ERROR_", 0) == 0) s = s.substr(11);
    auto it = ErrorNames().find(s);
    if (it != ErrorNames().end()) return it->second;
    throw ScenarioError(where + ": unknown NVML error name \"" + s + "\"");
  }
  TypeError(where, "an error name or number", v);
}

std::optional<int> OptErrorCode(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (!v) return std::nullopt;
  return ParseErrorCode(*v, where + "." + key);
}

std::map<std::string, int> ParseErrorMap(const json& obj, const std::string& where) {
  std::map<std::string, int> out;
  const json* m = OptObject(obj, "errors", where);
  if (!m) return out;
  for (auto& [k, v] : m->items()) {
    out[k] = ParseErrorCode(v, where + ".errors." + k);
  }
  return out;
}

std::vector<unsigned> ParseSamples(const json& obj, const char* key, const std::string& where) {
  const json* v = Field(obj, key);
  if (!v) return {0};
  std::vector<unsigned> out;
  if (v->is_number_unsigned()) {
    out.push_back(v->get<unsigned>());
  } else if (v->is_array() && !v->empty()) {
    for (const auto& s : *v) {
      if (!s.is_number_unsigned() || s.get<u64>() > 100) {
        TypeError(where + "." + key, "percentages 0-100", s);
      }
      out.push_back(s.get<unsigned>());
    }
  } else {
    TypeError(where + "." + key, "a non-empty array of percentages", *v);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Device parsing.

Pci ParsePci(const json& j, const std::string& where) {
  Pci p;
  p.bus_id = OptString(j, "bus_id", where).value_or("");
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (sscanf(p.bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) {
    throw ScenarioError(where + ".bus_id: \"" + p.bus_id + "\" is not DDDDDDDD:BB:DD.F");
  }
  p.domain = domain;
  p.bus = bus;
  p.device = dev;
  p.device_id = static_cast<unsigned>(OptHex(j, "device_id", where).value_or(0));
  p.subsystem_id = static_cast<unsigned>(OptHex(j, "subsystem_id", where).value_or(0));
  return p;
}

Process ParseProcess(const json& j, const std::string& where, bool* skip) {
  if (!j.is_object()) TypeError(where, "an object", j);
  Process p;
  *skip = false;
  if (auto env = OptString(j, "pid_env", where)) {
    // The PID of a real host process, e.g. a child the test spawned. An
    // unset variable drops the entry (documented in the README).
    const char* val = getenv(env->c_str());
    if (!val || !*val) {
      *skip = true;
      return p;
    }
    char* end = nullptr;
    long pid = strtol(val, &end, 10);
    if (*end != '\0' || pid <= 0) {
      throw ScenarioError(where + ".pid_env: $" + *env + "=\"" + val + "\" is not a PID");
    }
    p.pid = static_cast<unsigned>(pid);
    p.track = true;
  } else if (auto pid = OptU32(j, "pid", where)) {
    p.pid = *pid;
    p.track = OptBool(j, "track", where).value_or(0) != 0;
  } else {
    throw ScenarioError(where + ": needs \"pid\" or \"pid_env\"");
  }
  if (auto mib = OptInt(j, "used_mib", where, 0, 1ll << 40)) {
    p.used = static_cast<u64>(*mib) * kMiB;
  }
  const std::string type = OptString(j, "type", where).value_or("compute");
  if (type == "compute") {
    p.type = ProcType::kCompute;
  } else if (type == "graphics") {
    p.type = ProcType::kGraphics;
  } else if (type == "compute+graphics" || type == "C+G") {
    p.type = ProcType::kBoth;
  } else {
    throw ScenarioError(where + ".type: \"" + type +
                        "\" is not compute, graphics or compute+graphics");
  }
  p.gpu_instance_id = OptU32(j, "gpu_instance_id", where).value_or(kNoInstance);
  p.compute_instance_id = OptU32(j, "compute_instance_id", where).value_or(kNoInstance);
  p.name = OptString(j, "name", where);
  return p;
}

void ParsePcie(const json& j, const std::string& w, Device* d) {
  d->pcie_current_gen = OptU32(j, "current_gen", w);
  d->pcie_max_gen = OptU32(j, "max_gen", w);
  d->pcie_gpu_max_gen = OptU32(j, "gpu_max_gen", w);
  d->pcie_current_width = OptU32(j, "current_width", w);
  d->pcie_max_width = OptU32(j, "max_width", w);
  d->pcie_replay = OptU32(j, "replay_counter", w);
}

std::optional<Pair> OptPair(const json& j, const char* key, const std::string& w) {
  const json* o = OptObject(j, key, w);
  if (!o) return std::nullopt;
  const std::string ww = w + "." + key;
  return Pair{OptBool(*o, "current", ww).value_or(0), OptBool(*o, "pending", ww).value_or(0)};
}

void ParseHealth(const json& j, const std::string& w, Device* d) {
  if (const json* e = OptObject(j, "ecc_errors", w)) {
    for (const char* k : {"volatile_corrected", "volatile_uncorrected", "aggregate_corrected",
                          "aggregate_uncorrected"}) {
      OptInt(*e, k, w + ".ecc_errors", 0, 1ll << 62);
    }
    d->ecc_errors = *e;
  }
  if (const json* r = OptObject(j, "retired_pages", w)) {
    const std::string ww = w + ".retired_pages";
    d->retired_pages =
        Retired{OptU32(*r, "single_bit", ww).value_or(0), OptU32(*r, "double_bit", ww).value_or(0),
                OptBool(*r, "pending", ww).value_or(0) != 0};
  }
  if (const json* r = OptObject(j, "remapped_rows", w)) {
    const std::string ww = w + ".remapped_rows";
    d->remapped_rows = Remapped{
        OptU32(*r, "correctable", ww).value_or(0), OptU32(*r, "uncorrectable", ww).value_or(0),
        OptBool(*r, "pending", ww).value_or(0) != 0, OptBool(*r, "failure", ww).value_or(0) != 0};
  }
}

// ---------------------------------------------------------------------------
// Driver signals: fields, counters, fabric, NVLink, MIG.

Counter ParseCounter(const json& v, const std::string& where) {
  if (v.is_number()) return Counter{v.get<double>(), 0};
  if (!v.is_object()) TypeError(where, "a number or {base, per_s}", v);
  Counter c;
  for (auto& [k, x] : v.items()) {
    if (!x.is_number()) TypeError(where + "." + k, "a number", x);
    if (k == "base") {
      c.base = x.get<double>();
    } else if (k == "per_s") {
      c.per_s = x.get<double>();
    } else {
      throw ScenarioError(where + "." + k + ": expected base or per_s");
    }
  }
  return c;
}

const std::map<std::string, int>& ValueTypeNames() {
  static const auto* names = new std::map<std::string, int>{
      {"double", NVML_VALUE_TYPE_DOUBLE},        {"uint", NVML_VALUE_TYPE_UNSIGNED_INT},
      {"ulong", NVML_VALUE_TYPE_UNSIGNED_LONG},  {"ull", NVML_VALUE_TYPE_UNSIGNED_LONG_LONG},
      {"sll", NVML_VALUE_TYPE_SIGNED_LONG_LONG}, {"int", NVML_VALUE_TYPE_SIGNED_INT},
      {"ushort", NVML_VALUE_TYPE_UNSIGNED_SHORT}};
  return *names;
}

// Stores `n` in the union member of `type`.
nvmlValue_t TypedValue(int type, double d, long long ll) {
  nvmlValue_t v{};
  switch (type) {
    case NVML_VALUE_TYPE_DOUBLE:
      v.dVal = d;
      break;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      v.uiVal = static_cast<unsigned>(ll);
      break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      v.ulVal = static_cast<unsigned long>(ll);
      break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      v.ullVal = static_cast<u64>(ll);
      break;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      v.sllVal = ll;
      break;
    case NVML_VALUE_TYPE_SIGNED_INT:
      v.siVal = static_cast<int>(ll);
      break;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      v.usVal = static_cast<unsigned short>(ll);
      break;
  }
  return v;
}

FieldSpec NumberField(const json& n, int type) {
  FieldSpec f;
  f.type = type;
  long long ll =
      n.is_number_integer()
          ? (n.is_number_unsigned() ? static_cast<long long>(n.get<u64>()) : n.get<long long>())
          : static_cast<long long>(n.get<double>());
  f.value = TypedValue(type, n.get<double>(), ll);
  return f;
}

// "fields": {"<id>": number | "ERROR" | {"type": "uint", "value": n}}.
FieldSpec ParseField(const json& v, const std::string& where) {
  if (v.is_string()) {
    FieldSpec f;
    f.ret = ParseErrorCode(v, where);
    return f;
  }
  if (v.is_number_float()) return NumberField(v, NVML_VALUE_TYPE_DOUBLE);
  if (v.is_number_integer()) {
    bool neg = !v.is_number_unsigned() && v.get<long long>() < 0;
    return NumberField(v,
                       neg ? NVML_VALUE_TYPE_SIGNED_LONG_LONG : NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
  }
  if (!v.is_object()) TypeError(where, "a number, an error name or {type, value}", v);
  const std::string type = OptString(v, "type", where).value_or("ull");
  auto t = ValueTypeNames().find(type);
  if (t == ValueTypeNames().end()) throw ScenarioError(where + ".type: unknown \"" + type + "\"");
  const json* n = Field(v, "value");
  if (!n || !n->is_number()) TypeError(where + ".value", "a number", n ? *n : json());
  return NumberField(*n, t->second);
}

void ParseFields(const json& j, const std::string& w, Device* d) {
  // Named conveniences first; an explicit "fields" entry wins.
  if (auto a = OptU32(j, "recovery_action", w))
    d->fields[NVML_FI_DEV_GET_GPU_RECOVERY_ACTION] =
        NumberField(json(*a), NVML_VALUE_TYPE_UNSIGNED_INT);
  if (auto t = OptInt(j, "memory_temperature_c", w, -273, 1000))
    d->fields[NVML_FI_DEV_MEMORY_TEMP] = NumberField(json(*t), NVML_VALUE_TYPE_UNSIGNED_INT);
  const json* f = OptObject(j, "fields", w);
  if (!f) return;
  for (auto& [k, v] : f->items()) {
    char* end = nullptr;
    unsigned long id = strtoul(k.c_str(), &end, 10);
    if (k.empty() || *end != '\0') throw ScenarioError(w + ".fields." + k + ": not a field id");
    d->fields[static_cast<unsigned>(id)] = ParseField(v, w + ".fields." + k);
  }
}

const char* const kLimitKeys[] = {"sw_power_cap",    "sw_thermal",  "sync_boost", "board_limit",
                                  "low_utilization", "reliability", "hw_thermal", "hw_power_brake"};

void ParseLimitTime(const json& j, const std::string& w, Device* d) {
  const json* l = OptObject(j, "limit_time_ns", w);
  if (!l) return;
  for (auto& [k, v] : l->items()) {
    bool known = false;
    for (const char* key : kLimitKeys) known = known || k == key;
    if (!known) throw ScenarioError(w + ".limit_time_ns." + k + ": unknown limit");
    if (!v.is_null()) d->limit_time_ns[k] = ParseCounter(v, w + ".limit_time_ns." + k);
  }
}

void ParseThermal(const json& j, const std::string& w, Device* d) {
  if (const json* t = OptObject(j, "temperature_thresholds_c", w)) {
    const std::string ww = w + ".temperature_thresholds_c";
    const char* keys[] = {"shutdown", "slowdown", "memory_max", "gpu_max"};
    for (int i = 0; i < 4; ++i) {
      if (auto v = OptU32(*t, keys[i], ww)) d->temperature_thresholds[i] = *v;
    }
  }
  if (auto m = OptInt(j, "margin_temperature_c", w, -300, 300))
    d->margin_temperature_c = static_cast<int>(*m);
  if (const json* h = OptObject(j, "row_remapper_histogram", w)) {
    const std::string ww = w + ".row_remapper_histogram";
    d->row_remapper_histogram =
        RowHistogram{OptU32(*h, "max", ww).value_or(0), OptU32(*h, "high", ww).value_or(0),
                     OptU32(*h, "partial", ww).value_or(0), OptU32(*h, "low", ww).value_or(0),
                     OptU32(*h, "none", ww).value_or(0)};
  }
}

int NamedOrNumber(const json& v, const std::string& where,
                  std::initializer_list<std::pair<const char*, int>> names) {
  if (v.is_number_unsigned()) return v.get<int>();
  if (v.is_string()) {
    for (const auto& [n, code] : names)
      if (v.get<std::string>() == n) return code;
  }
  TypeError(where, "a known name or a number", v);
}

void ParseUuidBytes(const std::string& text, const std::string& where, unsigned char out[16]) {
  std::string hex;
  for (char ch : text)
    if (ch != '-') hex += ch;
  if (hex.size() != 32) throw ScenarioError(where + ": \"" + text + "\" is not a UUID");
  for (int i = 0; i < 16; ++i)
    out[i] = static_cast<unsigned char>(
        std::stoul(hex.substr(static_cast<size_t>(i) * 2, 2), nullptr, 16));
}

void ParseFabric(const json& j, const std::string& w, Device* d) {
  const json* f = OptObject(j, "fabric", w);
  if (!f) return;
  const std::string ww = w + ".fabric";
  Fabric fb;
  if (const json* st = Field(*f, "state"))
    fb.state = static_cast<unsigned char>(NamedOrNumber(
        *st, ww + ".state",
        {{"not_supported", 0}, {"not_started", 1}, {"in_progress", 2}, {"completed", 3}}));
  fb.status = OptErrorCode(*f, "status", ww).value_or(NVML_SUCCESS);
  fb.clique_id = OptU32(*f, "clique_id", ww).value_or(0);
  if (auto u = OptString(*f, "cluster_uuid", ww))
    ParseUuidBytes(*u, ww + ".cluster_uuid", fb.cluster_uuid);
  fb.health_mask = static_cast<unsigned>(OptHex(*f, "health_mask", ww).value_or(0));
  if (const json* hs = Field(*f, "health_summary"))
    fb.health_summary = static_cast<unsigned char>(NamedOrNumber(
        *hs, ww + ".health_summary",
        {{"not_supported", 0}, {"healthy", 1}, {"unhealthy", 2}, {"limited_capacity", 3}}));
  fb.max_version = OptU32(*f, "max_struct_version", ww).value_or(3);
  d->fabric = fb;
}

Link ParseLink(const json& j, const std::string& w, unsigned index) {
  if (!j.is_object()) TypeError(w, "an object", j);
  Link l;
  l.active = OptBool(j, "active", w).value_or(0) != 0;
  l.version = OptU32(j, "version", w);
  if (const json* rb = Field(j, "remote_bus_id")) {
    // An array (in a template) is cycled by link number.
    const json& one = rb->is_array() && !rb->empty() ? (*rb)[index % rb->size()] : *rb;
    json holder = {{"bus_id", one}};
    l.remote = ParsePci(holder, w + ".remote_bus_id");
  }
  if (const json* t = Field(j, "remote_device_type"))
    l.remote_type = NamedOrNumber(*t, w + ".remote_device_type",
                                  {{"gpu", 0}, {"ibmnpu", 1}, {"switch", 2}, {"unknown", 0xFF}});
  if (const json* e = OptObject(j, "errors", w)) {
    const std::pair<const char*, int> keys[] = {{"replay", NVML_NVLINK_ERROR_DL_REPLAY},
                                                {"recovery", NVML_NVLINK_ERROR_DL_RECOVERY},
                                                {"crc_flit", NVML_NVLINK_ERROR_DL_CRC_FLIT},
                                                {"crc_data", NVML_NVLINK_ERROR_DL_CRC_DATA}};
    for (const auto& [k, code] : keys) {
      if (const json* v = Field(*e, k)) l.errors[code] = ParseCounter(*v, w + ".errors." + k);
    }
  }
  return l;
}

// "nvlinks": [link, ...] or {"count": N, "template": link, "links": {"i": patch}}.
void ParseNvLinks(const json& j, const std::string& w, Device* d) {
  const json* n = Field(j, "nvlinks");
  if (!n) return;
  const std::string ww = w + ".nvlinks";
  std::vector<Link> links;
  if (n->is_array()) {
    for (size_t i = 0; i < n->size(); ++i)
      links.push_back(
          ParseLink((*n)[i], ww + "[" + std::to_string(i) + "]", static_cast<unsigned>(i)));
  } else if (n->is_object()) {
    const unsigned count = OptU32(*n, "count", ww).value_or(0);
    const json* tmpl = OptObject(*n, "template", ww);
    const json* patches = OptObject(*n, "links", ww);
    for (unsigned i = 0; i < count; ++i) {
      json link = tmpl ? *tmpl : json::object();
      if (patches && patches->contains(std::to_string(i)))
        link.merge_patch((*patches)[std::to_string(i)]);
      links.push_back(ParseLink(link, ww + "[" + std::to_string(i) + "]", i));
    }
  } else {
    TypeError(ww, "an array or {count, template, links}", *n);
  }
  d->nvlinks = std::move(links);
}

void ParseDeviceFields(const json& j, const std::string& w, Device* d);
void ParseDeviceFaults(const json& j, const std::string& w, Device* d);

// "mig_devices": [MIG device or null (an empty slot)], each parsed like a
// device (name, uuid, memory, processes, errors, hang_in...) plus its ids.
void ParseMig(const json& j, const std::string& w, Device* d) {
  d->max_mig_device_count = OptU32(j, "max_mig_device_count", w);
  const json* m = Field(j, "mig_devices");
  if (!m) return;
  if (!m->is_array()) TypeError(w + ".mig_devices", "an array", *m);
  for (size_t i = 0; i < m->size(); ++i) {
    const std::string ww = w + ".mig_devices[" + std::to_string(i) + "]";
    if ((*m)[i].is_null()) {
      d->mig_devices.push_back(nullptr);
      continue;
    }
    auto mig = std::make_unique<Device>();
    mig->index = static_cast<unsigned>(i);
    ParseDeviceFields((*m)[i], ww, mig.get());
    ParseDeviceFaults((*m)[i], ww, mig.get());
    mig->gpu_instance_id = OptU32((*m)[i], "gpu_instance_id", ww);
    mig->compute_instance_id = OptU32((*m)[i], "compute_instance_id", ww);
    d->mig_devices.push_back(std::move(mig));
  }
  if (!d->max_mig_device_count)
    d->max_mig_device_count = static_cast<unsigned>(d->mig_devices.size());
}

void ParseSignals(const json& j, const std::string& w, Device* d) {
  ParseFields(j, w, d);
  ParseLimitTime(j, w, d);
  ParseThermal(j, w, d);
  ParseFabric(j, w, d);
  ParseNvLinks(j, w, d);
  ParseMig(j, w, d);
}

void ParseDeviceFields(const json& j, const std::string& w, Device* d) {
  d->name = OptString(j, "name", w);
  d->uuid = OptString(j, "uuid", w);
  d->serial = OptString(j, "serial", w);
  d->vbios_version = OptString(j, "vbios_version", w);
  d->board_part_number = OptString(j, "board_part_number", w);
  if (const json* p = OptObject(j, "pci", w)) d->pci = ParsePci(*p, w + ".pci");
  if (const json* m = OptObject(j, "memory", w)) {
    const std::string ww = w + ".memory";
    auto total = OptInt(*m, "total_mib", ww, 0, 1ll << 40);
    if (!total) throw ScenarioError(ww + ".total_mib: missing");
    d->memory = Memory{static_cast<u64>(*total),
                       static_cast<u64>(OptInt(*m, "reserved_mib", ww, 0, *total).value_or(0)),
                       static_cast<u64>(OptInt(*m, "used_mib", ww, 0, *total).value_or(0))};
  }
  if (const json* u = OptObject(j, "utilization", w)) {
    const std::string ww = w + ".utilization";
    d->utilization = Utilization{ParseSamples(*u, "gpu", ww), ParseSamples(*u, "memory", ww)};
  }
  d->temperature_c = OptInt(j, "temperature_c", w, -273, 1000);
  d->power_draw_mw = OptU32(j, "power_draw_mw", w);
  d->power_limit_mw = OptU32(j, "power_limit_mw", w);
  d->pstate = OptU32(j, "pstate", w);
  d->fan_speed_pct = OptU32(j, "fan_speed_pct", w);
  d->persistence_mode = OptBool(j, "persistence_mode", w);
  d->compute_mode = OptU32(j, "compute_mode", w);
  d->mig_mode = OptPair(j, "mig_mode", w);
  d->ecc_mode = OptPair(j, "ecc_mode", w);
  ParseHealth(j, w, d);
  if (const json* p = OptObject(j, "pcie", w)) ParsePcie(*p, w + ".pcie", d);
  d->clock_reasons = OptHex(j, "clock_event_reasons", w);
  d->clock_reasons_supported = OptHex(j, "clock_event_reasons_supported", w);
  ParseSignals(j, w, d);
}

void ParseDeviceFaults(const json& j, const std::string& w, Device* d) {
  if (const json* ps = Field(j, "processes")) {
    if (!ps->is_array()) TypeError(w + ".processes", "an array", *ps);
    for (size_t i = 0; i < ps->size(); ++i) {
      bool skip = false;
      Process p = ParseProcess((*ps)[i], w + ".processes[" + std::to_string(i) + "]", &skip);
      if (!skip) d->processes.push_back(std::move(p));
    }
  }
  d->errors = ParseErrorMap(j, w);
  d->lost = OptBool(j, "lost", w).value_or(0) != 0;
  d->hang_in = OptString(j, "hang_in", w);
  d->handle_error = OptErrorCode(j, "handle_error", w);
}

// "copy_of": N starts from device N's JSON and applies this entry on top
// (RFC 7396 merge patch, so null and absent mean the same here too).
json ResolveCopy(const json& devices, size_t i, const std::vector<json>& resolved) {
  const json& raw = devices[i];
  const std::string w = "devices[" + std::to_string(i) + "]";
  if (!raw.is_object()) TypeError(w, "an object", raw);
  auto src = OptInt(raw, "copy_of", w, 0, static_cast<long long>(i) - 1);
  if (!src) return raw;
  json merged = resolved[static_cast<size_t>(*src)];
  json patch = raw;
  patch.erase("copy_of");
  merged.merge_patch(patch);
  return merged;
}

// "timeline": [{"at_s": 5, "set": {...}}, ...]: phases in time order, each
// the device JSON so far with `set` merged in (RFC 7396).
void ParseTimeline(json so_far, const json& timeline, const std::string& w, Device* d) {
  if (timeline.is_null()) return;
  if (!timeline.is_array()) TypeError(w + ".timeline", "an array", timeline);
  double last = 0;
  for (size_t k = 0; k < timeline.size(); ++k) {
    const std::string wk = w + ".timeline[" + std::to_string(k) + "]";
    const json& step = timeline[k];
    if (!step.is_object()) TypeError(wk, "an object", step);
    const json* at = Field(step, "at_s");
    if (!at || !at->is_number() || at->get<double>() < last)
      TypeError(wk + ".at_s", "a number of seconds, not below the step before", at ? *at : json());
    last = at->get<double>();
    if (const json* set = Field(step, "set")) {
      if (!set->is_object()) TypeError(wk + ".set", "an object", *set);
      so_far.merge_patch(*set);
    }
    auto phase = std::make_unique<Device>();
    phase->index = d->index;
    ParseDeviceFields(so_far, wk, phase.get());
    ParseDeviceFaults(so_far, wk, phase.get());
    d->phases.emplace_back(last, std::move(phase));
  }
}

// "events": [{"at_s": 5, "type": "xid", "data": 79}, ...] for event sets.
void ParseEvents(const json& events, const std::string& w, Device* d) {
  if (events.is_null()) return;
  if (!events.is_array()) TypeError(w + ".events", "an array", events);
  static const std::map<std::string, unsigned long long> kTypes = {
      {"xid", nvmlEventTypeXidCriticalError},
      {"ecc_single", nvmlEventTypeSingleBitEccError},
      {"ecc_double", nvmlEventTypeDoubleBitEccError},
      {"clock", nvmlEventTypeClock},
      {"power_source", nvmlEventTypePowerSourceChange},
      {"pstate", nvmlEventTypePState}};
  for (size_t k = 0; k < events.size(); ++k) {
    const std::string wk = w + ".events[" + std::to_string(k) + "]";
    const json& e = events[k];
    if (!e.is_object()) TypeError(wk, "an object", e);
    Device::Event ev;
    const json* at = Field(e, "at_s");
    if (!at || !at->is_number()) TypeError(wk + ".at_s", "a number of seconds", at ? *at : json());
    ev.at_s = at->get<double>();
    const json* type = Field(e, "type");
    if (type && type->is_string() && kTypes.count(type->get<std::string>()))
      ev.type = kTypes.at(type->get<std::string>());
    else if (type && type->is_number_unsigned())
      ev.type = type->get<unsigned long long>();
    else
      TypeError(wk + ".type",
                "xid, ecc_single, ecc_double, clock, power_source, pstate or a number",
                type ? *type : json());
    ev.data = static_cast<unsigned long long>(OptInt(e, "data", wk, 0, 1LL << 40).value_or(0));
    d->events.push_back(ev);
  }
}

void ParseDevices(const json& root, Scenario* s) {
  const json* devs = Field(root, "devices");
  if (!devs) return;
  if (!devs->is_array()) TypeError("devices", "an array", *devs);
  std::vector<json> resolved;
  for (size_t i = 0; i < devs->size(); ++i) {
    resolved.push_back(ResolveCopy(*devs, i, resolved));
    auto d = std::make_unique<Device>();
    d->index = static_cast<unsigned>(i);
    const std::string w = "devices[" + std::to_string(i) + "]";
    json base = resolved.back();
    const json timeline = base.contains("timeline") ? base["timeline"] : json();
    const json events = base.contains("events") ? base["events"] : json();
    base.erase("timeline");
    base.erase("events");
    ParseDeviceFields(base, w, d.get());
    ParseDeviceFaults(base, w, d.get());
    ParseTimeline(base, timeline, w, d.get());
    ParseEvents(events, w, d.get());
    s->devices.push_back(std::move(d));
  }
}

void ParseLatency(const json& root, Scenario* s) {
  const json* l = Field(root, "latency_ms");
  if (!l) return;
  if (l->is_number_unsigned()) {
    s->latency_ms["default"] = l->get<unsigned>();
    return;
  }
  if (!l->is_object()) TypeError("latency_ms", "an object or number", *l);
  for (auto& [k, v] : l->items()) {
    if (!v.is_number_unsigned()) TypeError("latency_ms." + k, "a number", v);
    s->latency_ms[k] = v.get<unsigned>();
  }
}

PairTopology ParsePairTopology(const json& j, const std::string& w) {
  static const std::map<std::string, int> kLevels = {{"internal", 0},  {"single", 10},
                                                     {"multiple", 20}, {"hostbridge", 30},
                                                     {"node", 40},     {"system", 50}};
  static const std::map<std::string, int> kCaps = {
      {"read", 0}, {"write", 1}, {"nvlink", 2}, {"atomics", 3}};
  static const std::map<std::string, int> kStatus = {{"ok", 0},
                                                     {"chipset_not_supported", 1},
                                                     {"gpu_not_supported", 2},
                                                     {"ioh_topology_not_supported", 3},
                                                     {"disabled_by_regkey", 4},
                                                     {"not_supported", 5},
                                                     {"unknown", 6}};
  if (!j.is_object()) TypeError(w, "an object", j);
  PairTopology t;
  if (auto level = OptString(j, "level", w)) {
    auto it = kLevels.find(*level);
    if (it == kLevels.end()) throw ScenarioError(w + ".level: unknown level \"" + *level + "\"");
    t.level = it->second;
  }
  if (const json* p2p = OptObject(j, "p2p", w)) {
    for (auto& [cap, v] : p2p->items()) {
      const std::string wc = w + ".p2p." + cap;
      auto c = kCaps.find(cap);
      if (c == kCaps.end()) throw ScenarioError(wc + ": unknown capability");
      if (v.is_null()) continue;  // NOT_SUPPORTED for this one
      if (!v.is_string()) TypeError(wc, "a string", v);
      auto st = kStatus.find(v.get<std::string>());
      if (st == kStatus.end())
        throw ScenarioError(wc + ": unknown status \"" + v.get<std::string>() + "\"");
      t.p2p[c->second] = st->second;
    }
  }
  return t;
}

// "topology": {"default": pair, "pairs": {"i,j": patch of default}}.
void ParseTopology(const json& root, Scenario* s) {
  const json* t = OptObject(root, "topology", "");
  if (!t) return;
  json base = json::object();
  if (const json* d = OptObject(*t, "default", "topology")) base = *d;
  s->pair_default = ParsePairTopology(base, "topology.default");
  s->pairs.emplace();
  const json* pairs = OptObject(*t, "pairs", "topology");
  if (!pairs) return;
  for (auto& [key, patch] : pairs->items()) {
    const std::string w = "topology.pairs." + key;
    unsigned a = 0, b = 0;
    char tail = 0;
    if (sscanf(key.c_str(), "%u,%u%c", &a, &b, &tail) != 2 || a == b)
      throw ScenarioError(w + ": the key is not \"i,j\" with i != j");
    json merged = base;
    merged.merge_patch(patch);
    (*s->pairs)[{std::min(a, b), std::max(a, b)}] = ParsePairTopology(merged, w);
  }
}

std::unique_ptr<Scenario> ParseScenario(const json& root, const std::string& path) {
  if (!root.is_object()) TypeError("top level", "an object", root);
  auto s = std::make_unique<Scenario>();
  s->path = path;
  if (const json* init = OptObject(root, "init", "")) {
    s->init_error = OptErrorCode(*init, "error", "init");
    s->init_hang = OptBool(*init, "hang", "init").value_or(0) != 0;
    s->init_latency_ms = OptU32(*init, "latency_ms", "init");
  }
  OptString(root, "description", "");
  OptString(root, "library_variant", "");
  s->library_version = OptString(root, "library_version", "");
  s->module_version = OptString(root, "module_version", "");
  if (const json* exempt = OptObject(root, "physics_exempt", "")) {
    s->r1_exempt = exempt->contains("R1") || exempt->contains("*");
  }
  s->driver_version = OptString(root, "driver_version", "");
  s->nvml_version = OptString(root, "nvml_version", "");
  auto cuda = OptInt(root, "cuda_driver_version", "", 0, 1 << 30);
  if (cuda) s->cuda_driver_version = static_cast<int>(*cuda);
  ParseLatency(root, s.get());
  s->errors = ParseErrorMap(root, "");
  ParseDevices(root, s.get());
  ParseTopology(root, s.get());
  return s;
}

// Reads and parses $MOCK_NVML_SCENARIO; on any problem prints one line and
// returns nullptr.
std::unique_ptr<Scenario> LoadScenario() {
  const char* path = getenv("MOCK_NVML_SCENARIO");
  if (!path || !*path) {
    fprintf(stderr, "mock-nvml: MOCK_NVML_SCENARIO is not set\n");
    return nullptr;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    fprintf(stderr, "mock-nvml: %s: cannot read: %s\n", path, strerror(errno));
    return nullptr;
  }
  try {
    // Nesting is bounded: printing a type error recurses through the value.
    json root = gt::parse_json_depth_limited<json>(text.str());
    return ParseScenario(root, path);
  } catch (const json::parse_error& e) {
    fprintf(stderr, "mock-nvml: %s: malformed JSON: %s\n", path, e.what());
  } catch (const std::exception& e) {
    fprintf(stderr, "mock-nvml: %s: %s\n", path, e.what());
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// Global state. A Scenario is never freed: a thread may still be sleeping in
// a hung call when the test calls nvmlShutdown, and stale handles must not
// point at freed memory. Re-initialising after a full shutdown re-reads the
// file (so a test can switch scenarios) and leaks the old one.

std::mutex g_init_mu;
int g_refcount = 0;  // guarded by g_init_mu
std::atomic<Scenario*> g_state{nullptr};

// "nvmlDeviceGetMemoryInfo_v2" -> "nvmlDeviceGetMemoryInfo",
// "nvmlDeviceGetTemperatureV" -> "nvmlDeviceGetTemperature".
std::string BaseName(const std::string& sym) {
  const size_t n = sym.size();
  if (n > 3 && sym[n - 3] == '_' && sym[n - 2] == 'v' && isdigit(sym[n - 1])) {
    return sym.substr(0, n - 3);
  }
  if (n > 1 && sym[n - 1] == 'V') return sym.substr(0, n - 1);
  return sym;
}

template <typename V>
const V* Lookup(const std::map<std::string, V>& m, const char* sym) {
  auto it = m.find(sym);
  if (it == m.end()) it = m.find(BaseName(sym));
  return it == m.end() ? nullptr : &it->second;
}

void SleepMs(unsigned ms) {
  if (ms) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

[[noreturn]] void HangForever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

void ApplyLatency(const Scenario& s, const char* sym) {
  const unsigned* ms = Lookup(s.latency_ms, sym);
  if (!ms) {
    auto it = s.latency_ms.find("default");
    if (it != s.latency_ms.end()) ms = &it->second;
  }
  if (ms) SleepMs(*ms);
}

template <typename F>
nvmlReturn_t Guard(const char* sym, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    fprintf(stderr, "mock-nvml: %s: internal error: %s\n", sym, e.what());
  } catch (...) {
    fprintf(stderr, "mock-nvml: %s: internal error\n", sym);
  }
  return NVML_ERROR_UNKNOWN;
}

// Prologue of a system-level call: init check, latency, injected error.
nvmlReturn_t EnterSystem(const char* sym, const Scenario** out) {
  const Scenario* s = g_state.load();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  ApplyLatency(*s, sym);
  if (const int* e = Lookup(s->errors, sym)) return *e;
  *out = s;
  return NVML_SUCCESS;
}

const Device* FindDevice(const Scenario& s, nvmlDevice_t h) {
  for (const auto& d : s.devices) {
    if (reinterpret_cast<nvmlDevice_t>(d.get()) == h) return d.get();
    for (const auto& m : d->mig_devices) {  // MIG handles are devices too
      if (m && reinterpret_cast<nvmlDevice_t>(m.get()) == h) return m.get();
    }
  }
  return nullptr;
}

double SecondsSinceInit(const Scenario& s) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
}

// The device as its timeline says it is now (itself before the first step).
const Device* Current(const Scenario& s, const Device* d) {
  if (d->phases.empty()) return d;
  const double t = SecondsSinceInit(s);
  const Device* now = d;
  for (const auto& [at, phase] : d->phases)
    if (at <= t) now = phase.get();
  return now;
}

// Prologue of a device call: init check, latency, handle check, hang, lost,
// injected error, in that order.
nvmlReturn_t Enter(const char* sym, nvmlDevice_t h, const Device** out) {
  const Scenario* s = g_state.load();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  ApplyLatency(*s, sym);
  const Device* d = FindDevice(*s, h);
  if (!d) return NVML_ERROR_INVALID_ARGUMENT;
  d = Current(*s, d);
  if (d->hang_in && (*d->hang_in == sym || *d->hang_in == BaseName(sym))) {
    HangForever();
  }
  if (d->lost) return NVML_ERROR_GPU_IS_LOST;
  if (const int* e = Lookup(d->errors, sym)) return *e;
  *out = d;
  return NVML_SUCCESS;
}

// A getter of one optional value: Enter, NULL check, NOT_SUPPORTED if unset.
template <typename T, typename Get>
nvmlReturn_t Scalar(const char* sym, nvmlDevice_t h, T* out, Get get) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    auto v = get(*d);
    if (!v) return NVML_ERROR_NOT_SUPPORTED;
    *out = static_cast<T>(*v);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t CopyString(const std::optional<std::string>& v, char* buf, unsigned length) {
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  if (!buf) return NVML_ERROR_INVALID_ARGUMENT;
  if (v->size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(buf, v->c_str(), v->size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t DeviceString(const char* sym, nvmlDevice_t h, char* buf, unsigned length,
                          std::optional<std::string> Device::*field) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    return CopyString(d->*field, buf, length);
  });
}

nvmlReturn_t SystemString(const char* sym, char* buf, unsigned length,
                          std::optional<std::string> Scenario::*field) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    return CopyString(s->*field, buf, length);
  });
}

// ---------------------------------------------------------------------------
// Process liveness.

bool IsZombie(unsigned pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // "pid (comm) S ..."; comm may contain spaces and parentheses.
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// Fixed fake PIDs refer to fixture /proc trees and are always live. Tracked
// ones are live while the host PID exists and is not a zombie (an exited but
// unreaped child still answers kill(pid, 0)).
bool IsLive(const Process& p) {
  if (!p.track) return true;
  if (kill(static_cast<pid_t>(p.pid), 0) != 0 && errno != EPERM) return false;
  return !IsZombie(p.pid);
}

bool Matches(const Process& p, bool graphics) {
  if (p.type == ProcType::kBoth) return true;
  return graphics ? p.type == ProcType::kGraphics : p.type == ProcType::kCompute;
}

void Fill(nvmlProcessInfo_v1_t* r, const Process& p) {
  memset(r, 0, sizeof(*r));
  r->pid = p.pid;
  r->usedGpuMemory = p.used.value_or(NVML_VALUE_NOT_AVAILABLE_ULL);
}

void Fill(nvmlProcessInfo_v2_t* r, const Process& p) {
  memset(r, 0, sizeof(*r));
  r->pid = p.pid;
  r->usedGpuMemory = p.used.value_or(NVML_VALUE_NOT_AVAILABLE_ULL);
  r->gpuInstanceId = p.gpu_instance_id;
  r->computeInstanceId = p.compute_instance_id;
}

[[maybe_unused]] void Fill(nvmlProcessInfo_r535_t* r, const Process& p) {
  memset(r, 0, sizeof(*r));
  r->pid = p.pid;
  r->usedGpuMemory = p.used.value_or(NVML_VALUE_NOT_AVAILABLE_ULL);
  r->gpuInstanceId = p.gpu_instance_id;
  r->computeInstanceId = p.compute_instance_id;
  r->usedGpuCcProtectedMemory = 0;
}

// NVML's list protocol: a too-small *count gets INSUFFICIENT_SIZE and the
// needed count; otherwise the records and the number written.
template <typename Rec>
nvmlReturn_t ListProcesses(const char* sym, nvmlDevice_t h, unsigned* count, Rec* infos,
                           bool graphics) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    std::vector<const Process*> live;
    for (const Process& p : d->processes) {
      if (Matches(p, graphics) && IsLive(p)) live.push_back(&p);
    }
    if (*count < live.size()) {
      *count = static_cast<unsigned>(live.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (!infos && !live.empty()) return NVML_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < live.size(); ++i) Fill(&infos[i], *live[i]);
    *count = static_cast<unsigned>(live.size());
    return NVML_SUCCESS;
  });
}

// used = reserved + baseline + live processes (NVML counts reserved in used
// for both v1 and v2).
void ComputeMemory(const Device& d, u64* total, u64* reserved, u64* free_b, u64* used) {
  const Memory& m = *d.memory;
  *total = m.total_mib * kMiB;
  *reserved = m.reserved_mib * kMiB;
  *used = *reserved + m.used_mib * kMiB;
  for (const Process& p : d.processes) {
    if (p.used && IsLive(p)) *used += *p.used;
  }
  if (*used > *total) *used = *total;
  *free_b = *total - *used;
}

nvmlReturn_t InitImpl(const char* sym) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    std::unique_lock<std::mutex> lock(g_init_mu);
    if (g_refcount > 0) {
      ++g_refcount;
      return NVML_SUCCESS;
    }
    std::unique_ptr<Scenario> s = LoadScenario();
    if (!s) return NVML_ERROR_UNKNOWN;
    if (s->init_latency_ms) {
      SleepMs(*s->init_latency_ms);
    } else {
      ApplyLatency(*s, sym);
    }
    if (s->init_hang) {
      lock.unlock();
      HangForever();
    }
    if (s->init_error && *s->init_error != NVML_SUCCESS) {
      return *s->init_error;
    }
    if (s->library_version && s->module_version && *s->library_version != *s->module_version &&
        !s->r1_exempt) {
      return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
    }
    s->started = std::chrono::steady_clock::now();
    g_state.store(s.release());  // never freed, see above
    ++g_refcount;
    return NVML_SUCCESS;
  });
}

}  // namespace

// ===========================================================================
// Exports.

MOCK_EXPORT nvmlReturn_t nvmlInit(void) { return InitImpl("nvmlInit"); }
MOCK_EXPORT nvmlReturn_t nvmlInit_v2(void) { return InitImpl("nvmlInit_v2"); }
MOCK_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int) { return InitImpl("nvmlInitWithFlags"); }

MOCK_EXPORT nvmlReturn_t nvmlShutdown(void) {
  return Guard("nvmlShutdown", []() -> nvmlReturn_t {
    std::lock_guard<std::mutex> lock(g_init_mu);
    if (g_refcount > 0 && --g_refcount == 0) g_state.store(nullptr);
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT const char* nvmlErrorString(nvmlReturn_t result) { return ErrorText(result); }

MOCK_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned int n) {
  return SystemString("nvmlSystemGetDriverVersion", v, n, &Scenario::driver_version);
}

MOCK_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char* v, unsigned int n) {
  return SystemString("nvmlSystemGetNVMLVersion", v, n, &Scenario::nvml_version);
}

static nvmlReturn_t CudaVersion(const char* sym, int* out) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!s->cuda_driver_version) return NVML_ERROR_NOT_SUPPORTED;
    *out = *s->cuda_driver_version;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  return CudaVersion("nvmlSystemGetCudaDriverVersion", v);
}
MOCK_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  return CudaVersion("nvmlSystemGetCudaDriverVersion_v2", v);
}

// The "name" from the scenario; for a tracked live host PID, its comm.
MOCK_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char* name,
                                                  unsigned int length) {
  const char* sym = "nvmlSystemGetProcessName";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    for (const auto& d : s->devices) {
      for (const Process& p : d->processes) {
        if (p.pid != pid || !IsLive(p)) continue;
        if (p.name) return CopyString(p.name, name, length);
        if (!p.track) continue;
        std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
        std::string comm;
        if (std::getline(in, comm)) return CopyString(comm, name, length);
      }
    }
    return NVML_ERROR_NOT_FOUND;
  });
}

static nvmlReturn_t DeviceCount(const char* sym, unsigned int* out) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    *out = static_cast<unsigned>(s->devices.size());
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int* c) {
  return DeviceCount("nvmlDeviceGetCount", c);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* c) {
  return DeviceCount("nvmlDeviceGetCount_v2", c);
}

// Succeeds even for a lost GPU (as NVML does); fails with handle_error.
static nvmlReturn_t HandleByIndex(const char* sym, unsigned int index, nvmlDevice_t* out) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    if (!out || index >= s->devices.size()) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    const Device& d = *Current(*s, s->devices[index].get());
    if (d.hang_in && (*d.hang_in == sym || *d.hang_in == BaseName(sym))) {
      HangForever();
    }
    if (d.handle_error) return *d.handle_error;
    if (const int* e = Lookup(d.errors, sym)) return *e;
    *out = reinterpret_cast<nvmlDevice_t>(s->devices[index].get());
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t* d) {
  return HandleByIndex("nvmlDeviceGetHandleByIndex", i, d);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
  return HandleByIndex("nvmlDeviceGetHandleByIndex_v2", i, d);
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t h, unsigned int* i) {
  return Scalar("nvmlDeviceGetIndex", h, i,
                [](const Device& d) { return std::optional<unsigned>(d.index); });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char* b, unsigned int n) {
  return DeviceString("nvmlDeviceGetName", h, b, n, &Device::name);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char* b, unsigned int n) {
  return DeviceString("nvmlDeviceGetUUID", h, b, n, &Device::uuid);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t h, char* b, unsigned int n) {
  return DeviceString("nvmlDeviceGetSerial", h, b, n, &Device::serial);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t h, char* b, unsigned int n) {
  return DeviceString("nvmlDeviceGetVbiosVersion", h, b, n, &Device::vbios_version);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t h, char* b, unsigned int n) {
  return DeviceString("nvmlDeviceGetBoardPartNumber", h, b, n, &Device::board_part_number);
}

// All three versions fill the same 68-byte struct (nvml-abi.md §4).
static nvmlReturn_t PciInfo(const char* sym, nvmlDevice_t h, nvmlPciInfo_t* out) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->pci) return NVML_ERROR_NOT_SUPPORTED;
    const Pci& p = *d->pci;
    memset(out, 0, sizeof(*out));
    snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.0", p.domain & 0xFFFF,
             p.bus & 0xFF, p.device & 0xFF);
    snprintf(out->busId, sizeof(out->busId), "%08X:%02X:%02X.0", p.domain, p.bus & 0xFF,
             p.device & 0xFF);
    out->domain = p.domain;
    out->bus = p.bus;
    out->device = p.device;
    out->pciDeviceId = p.device_id;
    out->pciSubSystemId = p.subsystem_id;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t h, nvmlPciInfo_t* p) {
  return PciInfo("nvmlDeviceGetPciInfo", h, p);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t h, nvmlPciInfo_t* p) {
  return PciInfo("nvmlDeviceGetPciInfo_v2", h, p);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t* p) {
  return PciInfo("nvmlDeviceGetPciInfo_v3", h, p);
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t* out) {
  const char* sym = "nvmlDeviceGetMemoryInfo";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->memory) return NVML_ERROR_NOT_SUPPORTED;
    u64 reserved = 0;
    ComputeMemory(*d, &out->total, &reserved, &out->free, &out->used);
    return NVML_SUCCESS;
  });
}

#ifdef MOCK_HAS_MEMORY_V2
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t* out) {
  const char* sym = "nvmlDeviceGetMemoryInfo_v2";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (out->version != nvmlMemory_v2) {
      return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (!d->memory) return NVML_ERROR_NOT_SUPPORTED;
    ComputeMemory(*d, &out->total, &out->reserved, &out->free, &out->used);
    return NVML_SUCCESS;
  });
}
#endif

// Walks the sample arrays, one step per call.
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t* out) {
  const char* sym = "nvmlDeviceGetUtilizationRates";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->utilization) return NVML_ERROR_NOT_SUPPORTED;
    const u64 i = d->util_cursor.fetch_add(1);
    const Utilization& u = *d->utilization;
    out->gpu = u.gpu[i % u.gpu.size()];
    out->memory = u.memory[i % u.memory.size()];
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned int* out) {
  const char* sym = "nvmlDeviceGetTemperature";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out || sensor != NVML_TEMPERATURE_GPU) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!d->temperature_c) return NVML_ERROR_NOT_SUPPORTED;
    *out = static_cast<unsigned>(*d->temperature_c);
    return NVML_SUCCESS;
  });
}

#ifdef MOCK_HAS_TEMPERATURE_V
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t h, nvmlTemperature_v1_t* out) {
  const char* sym = "nvmlDeviceGetTemperatureV";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (out->version != nvmlTemperature_v1) {
      return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (out->sensorType != NVML_TEMPERATURE_GPU) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!d->temperature_c) return NVML_ERROR_NOT_SUPPORTED;
    out->temperature = *d->temperature_c;
    return NVML_SUCCESS;
  });
}
#endif

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int* mw) {
  return Scalar("nvmlDeviceGetPowerUsage", h, mw, [](const Device& d) { return d.power_draw_mw; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned int* mw) {
  return Scalar("nvmlDeviceGetEnforcedPowerLimit", h, mw,
                [](const Device& d) { return d.power_limit_mw; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t h, unsigned int* mw) {
  return Scalar("nvmlDeviceGetPowerManagementLimit", h, mw,
                [](const Device& d) { return d.power_limit_mw; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t h, int* p) {
  return Scalar("nvmlDeviceGetPerformanceState", h, p, [](const Device& d) { return d.pstate; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t h, unsigned int* pct) {
  return Scalar("nvmlDeviceGetFanSpeed", h, pct, [](const Device& d) { return d.fan_speed_pct; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t h, int* m) {
  return Scalar("nvmlDeviceGetPersistenceMode", h, m,
                [](const Device& d) { return d.persistence_mode; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t h, int* m) {
  return Scalar("nvmlDeviceGetComputeMode", h, m, [](const Device& d) { return d.compute_mode; });
}

static nvmlReturn_t PairGetter(const char* sym, nvmlDevice_t h, unsigned* current,
                               unsigned* pending, std::optional<Pair> Device::*field) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    const auto& v = d->*field;
    if (!v) return NVML_ERROR_NOT_SUPPORTED;
    *current = v->current;
    *pending = v->pending;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned int* c, unsigned int* p) {
  return PairGetter("nvmlDeviceGetMigMode", h, c, p, &Device::mig_mode);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t h, int* c, int* p) {
  return PairGetter("nvmlDeviceGetEccMode", h, reinterpret_cast<unsigned*>(c),
                    reinterpret_cast<unsigned*>(p), &Device::ecc_mode);
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t h, int error_type,
                                                     int counter_type, unsigned long long* out) {
  const char* sym = "nvmlDeviceGetTotalEccErrors";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out || error_type < 0 || error_type > 1 || counter_type < 0 || counter_type > 1) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!d->ecc_errors) return NVML_ERROR_NOT_SUPPORTED;
    std::string key = counter_type == NVML_VOLATILE_ECC ? "volatile_" : "aggregate_";
    key += error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected";
    const json* v = Field(*d->ecc_errors, key.c_str());
    *out = v ? v->get<u64>() : 0;
    return NVML_SUCCESS;
  });
}

// pageCount is in/out; 0 queries the size. Addresses are made up but stable.
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t h, int cause, unsigned int* count,
                                                   unsigned long long* addrs) {
  const char* sym = "nvmlDeviceGetRetiredPages";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!count || cause < 0 || cause > 1) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->retired_pages) return NVML_ERROR_NOT_SUPPORTED;
    const unsigned n = cause == 0 ? d->retired_pages->single_bit : d->retired_pages->double_bit;
    if (*count < n) {
      *count = n;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n && !addrs) return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < n; ++i) {
      addrs[i] = 0x1000ull * (0x100 * (cause + 1) + i + d->index * 0x10);
    }
    *count = n;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t h, int* pending) {
  return Scalar("nvmlDeviceGetRetiredPagesPendingStatus", h, pending,
                [](const Device& d) -> std::optional<int> {
                  if (!d.retired_pages) return std::nullopt;
                  return d.retired_pages->pending ? 1 : 0;
                });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t h, unsigned int* corr,
                                                   unsigned int* unc, unsigned int* pending,
                                                   unsigned int* failure) {
  const char* sym = "nvmlDeviceGetRemappedRows";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!corr || !unc || !pending || !failure) {
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!d->remapped_rows) return NVML_ERROR_NOT_SUPPORTED;
    *corr = d->remapped_rows->correctable;
    *unc = d->remapped_rows->uncorrectable;
    *pending = d->remapped_rows->pending;
    *failure = d->remapped_rows->failure;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetCurrPcieLinkGeneration", h, v,
                [](const Device& d) { return d.pcie_current_gen; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetMaxPcieLinkGeneration", h, v,
                [](const Device& d) { return d.pcie_max_gen; });
}
#ifdef MOCK_HAS_GPU_MAX_PCIE_GEN
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetGpuMaxPcieLinkGeneration", h, v,
                [](const Device& d) { return d.pcie_gpu_max_gen; });
}
#endif
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetCurrPcieLinkWidth", h, v,
                [](const Device& d) { return d.pcie_current_width; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetMaxPcieLinkWidth", h, v,
                [](const Device& d) { return d.pcie_max_width; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t h, unsigned int* v) {
  return Scalar("nvmlDeviceGetPcieReplayCounter", h, v,
                [](const Device& d) { return d.pcie_replay; });
}

#ifdef MOCK_HAS_EVENT_REASONS
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h,
                                                                unsigned long long* v) {
  return Scalar("nvmlDeviceGetCurrentClocksEventReasons", h, v,
                [](const Device& d) { return d.clock_reasons; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t h,
                                                                  unsigned long long* v) {
  return Scalar("nvmlDeviceGetSupportedClocksEventReasons", h, v,
                [](const Device& d) { return d.clock_reasons_supported; });
}
#endif
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h,
                                                                   unsigned long long* v) {
  return Scalar("nvmlDeviceGetCurrentClocksThrottleReasons", h, v,
                [](const Device& d) { return d.clock_reasons; });
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t h,
                                                                     unsigned long long* v) {
  return Scalar("nvmlDeviceGetSupportedClocksThrottleReasons", h, v,
                [](const Device& d) { return d.clock_reasons_supported; });
}

// void* as the tool declares it (one pointer type for every record size:
// calling through another function type is what UBSan's -fsanitize=function flags).
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t h, unsigned int* n,
                                                              void* p) {
  return ListProcesses("nvmlDeviceGetComputeRunningProcesses", h, n,
                       static_cast<nvmlProcessInfo_v1_t*>(p), false);
}
// void* as the tool declares it (one pointer type for every record size:
// calling through another function type is what UBSan's -fsanitize=function flags).
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t h, unsigned int* n,
                                                                 void* p) {
  return ListProcesses("nvmlDeviceGetComputeRunningProcesses_v2", h, n,
                       static_cast<nvmlProcessInfo_v2_t*>(p), false);
}
// void* as the tool declares it (one pointer type for every record size:
// calling through another function type is what UBSan's -fsanitize=function flags).
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t h, unsigned int* n,
                                                               void* p) {
  return ListProcesses("nvmlDeviceGetGraphicsRunningProcesses", h, n,
                       static_cast<nvmlProcessInfo_v1_t*>(p), true);
}
// void* as the tool declares it (one pointer type for every record size:
// calling through another function type is what UBSan's -fsanitize=function flags).
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t h, unsigned int* n,
                                                                  void* p) {
  return ListProcesses("nvmlDeviceGetGraphicsRunningProcesses_v2", h, n,
                       static_cast<nvmlProcessInfo_v2_t*>(p), true);
}
#ifdef MOCK_HAS_V3_PROCESSES
// The record type depends on the variant: 24 bytes, or 32 for early R535.
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned int* n,
                                                                 void* p) {
  return ListProcesses("nvmlDeviceGetComputeRunningProcesses_v3", h, n,
                       static_cast<MOCK_V3_RECORD*>(p), false);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t h, unsigned int* n,
                                                                  void* p) {
  return ListProcesses("nvmlDeviceGetGraphicsRunningProcesses_v3", h, n,
                       static_cast<MOCK_V3_RECORD*>(p), true);
}
#endif

#ifdef MOCK_HAS_CONF_COMPUTE
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t h, void* info) {
  const char* sym = "nvmlDeviceGetConfComputeMemSizeInfo";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    (void)info;
    return NVML_ERROR_NOT_SUPPORTED;
  });
}
#endif

#ifdef MOCK_HAS_DETAIL_LIST
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t h, void* list) {
  const char* sym = "nvmlDeviceGetRunningProcessDetailList";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    (void)list;
    return NVML_ERROR_NOT_SUPPORTED;
  });
}
#endif

// ---------------------------------------------------------------------------
// Driver signals (README "Driver signals").

namespace {

u64 CounterNow(const Counter& c) {
  const Scenario* s = g_state.load();
  double secs = 0;
  if (s) {
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - s->started).count();
  }
  double v = c.base + c.per_s * secs;
  return v <= 0 ? 0 : static_cast<u64>(v);
}

long long RealtimeUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const char* LimitKeyOfPolicy(int policy) {
  switch (policy) {
    case 0:
      return "sw_power_cap";
    case 1:
      return "sw_thermal";
    case 2:
      return "sync_boost";
    case 3:
      return "board_limit";
    case 4:
      return "low_utilization";
    case 5:
      return "reliability";
  }
  return nullptr;
}

// Field ids derived from limit_time_ns: 74-79 (never moved) and, in the
// 12.9/13.0 numbering this mock emulates, 251-253.
const char* LimitKeyOfField(unsigned id) {
  switch (id) {
    case 74:
      return "sw_power_cap";
    case 75:
      return "sw_thermal";
    case 76:
      return "sync_boost";
    case 77:
      return "board_limit";
    case 78:
      return "low_utilization";
    case 79:
      return "reliability";
    case 251:
      return "sw_thermal";
    case 252:
      return "hw_thermal";
    case 253:
      return "hw_power_brake";
  }
  return nullptr;
}

void FillField(const Device& d, nvmlFieldValue_t* v) {
  v->timestamp = RealtimeUs();
  v->latencyUsec = 0;
  if (v->fieldId >= MOCK_FI_MAX) {  // unknown to this "driver"
    v->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
    return;
  }
  auto f = d.fields.find(v->fieldId);
  if (f != d.fields.end()) {
    v->nvmlReturn = f->second.ret;
    v->valueType = f->second.type;
    v->value = f->second.value;
    return;
  }
  if (const char* key = LimitKeyOfField(v->fieldId)) {
    auto c = d.limit_time_ns.find(key);
    if (c != d.limit_time_ns.end()) {
      v->nvmlReturn = NVML_SUCCESS;
      v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
      v->value.ullVal = CounterNow(c->second);
      return;
    }
  }
  v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
}

}  // namespace

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int count,
                                                  nvmlFieldValue_t* values) {
  const char* sym = "nvmlDeviceGetFieldValues";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!values || count <= 0) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < count; ++i) FillField(*d, &values[i]);
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t h,
                                                           nvmlRowRemapperHistogramValues_t* out) {
  const char* sym = "nvmlDeviceGetRowRemapperHistogram";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->row_remapper_histogram) return NVML_ERROR_NOT_SUPPORTED;
    const RowHistogram& rh = *d->row_remapper_histogram;
    *out = {rh.max, rh.high, rh.partial, rh.low, rh.none};
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t h, int which,
                                                           unsigned int* out) {
  const char* sym = "nvmlDeviceGetTemperatureThreshold";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out || which < 0 || which > 7) return NVML_ERROR_INVALID_ARGUMENT;
    auto it = d->temperature_thresholds.find(which);
    if (it == d->temperature_thresholds.end()) return NVML_ERROR_NOT_SUPPORTED;
    *out = it->second;
    return NVML_SUCCESS;
  });
}

#ifdef MOCK_HAS_MARGIN_TEMPERATURE
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t h,
                                                        nvmlMarginTemperature_v1_t* out) {
  const char* sym = "nvmlDeviceGetMarginTemperature";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (out->version != nvmlMarginTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (!d->margin_temperature_c) return NVML_ERROR_NOT_SUPPORTED;
    out->marginTemperature = *d->margin_temperature_c;
    return NVML_SUCCESS;
  });
}
#endif

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t h, int policy,
                                                      nvmlViolationTime_t* out) {
  const char* sym = "nvmlDeviceGetViolationStatus";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out || policy < 0 || policy > 11) return NVML_ERROR_INVALID_ARGUMENT;
    const char* key = LimitKeyOfPolicy(policy);
    auto it = key ? d->limit_time_ns.find(key) : d->limit_time_ns.end();
    if (it == d->limit_time_ns.end()) return NVML_ERROR_NOT_SUPPORTED;
    out->referenceTime = static_cast<u64>(RealtimeUs());
    out->violationTime = CounterNow(it->second);
    return NVML_SUCCESS;
  });
}

#ifdef MOCK_HAS_FABRIC_INFO
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t h, nvmlGpuFabricInfo_t* out) {
  const char* sym = "nvmlDeviceGetGpuFabricInfo";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->fabric) return NVML_ERROR_NOT_SUPPORTED;
    const Fabric& f = *d->fabric;
    memset(out, 0, sizeof(*out));
    memcpy(out->clusterUuid, f.cluster_uuid, 16);
    out->status = f.status;
    out->cliqueId = f.clique_id;
    out->state = f.state;
    return NVML_SUCCESS;
  });
}
#endif

#ifdef MOCK_HAS_FABRIC_INFO_V
// v2 always; v3 when the scenario's max_struct_version allows (13.0+).
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t h, void* p) {
  const char* sym = "nvmlDeviceGetGpuFabricInfoV";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!p) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned version = 0;
    memcpy(&version, p, sizeof version);
    const unsigned max = d->fabric ? d->fabric->max_version : 3;
    const bool v3 = version == nvmlGpuFabricInfo_v3 && max >= 3;
    if (!v3 && version != nvmlGpuFabricInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (!d->fabric) return NVML_ERROR_NOT_SUPPORTED;
    const Fabric& f = *d->fabric;
    nvmlGpuFabricInfo_v3_t s{};  // v2's fields sit at the same offsets
    s.version = version;
    memcpy(s.clusterUuid, f.cluster_uuid, 16);
    s.status = f.status;
    s.cliqueId = f.clique_id;
    s.state = f.state;
    s.healthMask = f.health_mask;
    s.healthSummary = f.health_summary;
    memcpy(p, &s, v3 ? sizeof(nvmlGpuFabricInfo_v3_t) : sizeof(nvmlGpuFabricInfo_v2_t));
    return NVML_SUCCESS;
  });
}
#endif

namespace {

// Prologue of a per-link call: the link must exist.
nvmlReturn_t EnterLink(const char* sym, nvmlDevice_t h, unsigned link, const Device** d,
                       const Link** l) {
  if (nvmlReturn_t r = Enter(sym, h, d)) return r;
  if (!(*d)->nvlinks) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= (*d)->nvlinks->size()) return NVML_ERROR_INVALID_ARGUMENT;
  *l = &(*(*d)->nvlinks)[link];
  return NVML_SUCCESS;
}

}  // namespace

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t h, unsigned int link, int* out) {
  const char* sym = "nvmlDeviceGetNvLinkState";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    const Link* l = nullptr;
    if (nvmlReturn_t r = EnterLink(sym, h, link, &d, &l)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    *out = l->active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t h, unsigned int link,
                                                    unsigned int* out) {
  const char* sym = "nvmlDeviceGetNvLinkVersion";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    const Link* l = nullptr;
    if (nvmlReturn_t r = EnterLink(sym, h, link, &d, &l)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!l->version) return NVML_ERROR_NOT_SUPPORTED;
    *out = *l->version;
    return NVML_SUCCESS;
  });
}

static nvmlReturn_t RemotePci(const char* sym, nvmlDevice_t h, unsigned link, nvmlPciInfo_t* out) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    const Link* l = nullptr;
    if (nvmlReturn_t r = EnterLink(sym, h, link, &d, &l)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!l->remote) return NVML_ERROR_NOT_SUPPORTED;
    const Pci& p = *l->remote;
    memset(out, 0, sizeof(*out));
    snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.0", p.domain & 0xFFFF,
             p.bus & 0xFF, p.device & 0xFF);
    snprintf(out->busId, sizeof(out->busId), "%08X:%02X:%02X.0", p.domain, p.bus & 0xFF,
             p.device & 0xFF);
    out->domain = p.domain;
    out->bus = p.bus;
    out->device = p.device;
    out->pciDeviceId = p.device_id;  // pciSubSystemId is left unset, as NVML does
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t h, unsigned int link,
                                                          nvmlPciInfo_t* out) {
  return RemotePci("nvmlDeviceGetNvLinkRemotePciInfo", h, link, out);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t h, unsigned int link,
                                                             nvmlPciInfo_t* out) {
  return RemotePci("nvmlDeviceGetNvLinkRemotePciInfo_v2", h, link, out);
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t h, unsigned int link,
                                                             int* out) {
  const char* sym = "nvmlDeviceGetNvLinkRemoteDeviceType";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    const Link* l = nullptr;
    if (nvmlReturn_t r = EnterLink(sym, h, link, &d, &l)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!l->remote_type) return NVML_ERROR_NOT_SUPPORTED;
    *out = *l->remote_type;
    return NVML_SUCCESS;
  });
}

namespace {

// Prologue of a pair call: both handles valid (the first one entered as a
// device call: latency, hang, lost, injected error), then the pair's answers
// (nullptr: the scenario has no "topology", NOT_SUPPORTED).
nvmlReturn_t EnterPair(const char* sym, nvmlDevice_t h1, nvmlDevice_t h2,
                       const PairTopology** out) {
  const Device* d1 = nullptr;
  if (nvmlReturn_t r = Enter(sym, h1, &d1)) return r;
  const Scenario* s = g_state.load();
  const Device* d2 = FindDevice(*s, h2);
  if (!d2) return NVML_ERROR_INVALID_ARGUMENT;
  if (d2->lost) return NVML_ERROR_GPU_IS_LOST;
  *out = nullptr;
  if (!s->pairs) return NVML_SUCCESS;
  auto it = s->pairs->find({std::min(d1->index, d2->index), std::max(d1->index, d2->index)});
  *out = it != s->pairs->end() ? &it->second : &*s->pair_default;
  return NVML_SUCCESS;
}

}  // namespace

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t h1, nvmlDevice_t h2,
                                                             int* out) {
  const char* sym = "nvmlDeviceGetTopologyCommonAncestor";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const PairTopology* t = nullptr;
    if (nvmlReturn_t r = EnterPair(sym, h1, h2, &t)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!t || !t->level) return NVML_ERROR_NOT_SUPPORTED;
    *out = *t->level;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t h1, nvmlDevice_t h2, int cap,
                                                int* out) {
  const char* sym = "nvmlDeviceGetP2PStatus";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const PairTopology* t = nullptr;
    if (nvmlReturn_t r = EnterPair(sym, h1, h2, &t)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!t) return NVML_ERROR_NOT_SUPPORTED;
    auto it = t->p2p.find(cap);
    if (it == t->p2p.end()) return NVML_ERROR_NOT_SUPPORTED;
    *out = it->second;
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t h, unsigned int link,
                                                         int counter, unsigned long long* out) {
  const char* sym = "nvmlDeviceGetNvLinkErrorCounter";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    const Link* l = nullptr;
    if (nvmlReturn_t r = EnterLink(sym, h, link, &d, &l)) return r;
    if (!out || counter < 0 || counter > 4) return NVML_ERROR_INVALID_ARGUMENT;
    auto it = l->errors.find(counter);
    if (it == l->errors.end()) return NVML_ERROR_NOT_SUPPORTED;
    *out = CounterNow(it->second);
    return NVML_SUCCESS;
  });
}

// 0 when MIG is off (as NVML); NOT_SUPPORTED when the GPU has no MIG at all.
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned int* out) {
  return Scalar("nvmlDeviceGetMaxMigDeviceCount", h, out,
                [](const Device& d) -> std::optional<unsigned> {
                  if (d.max_mig_device_count) return d.max_mig_device_count;
                  if (d.mig_mode) return 0u;
                  return std::nullopt;
                });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned int index,
                                                             nvmlDevice_t* out) {
  const char* sym = "nvmlDeviceGetMigDeviceHandleByIndex";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned max = d->max_mig_device_count.value_or(0);
    if (index >= max) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= d->mig_devices.size() || !d->mig_devices[index]) return NVML_ERROR_NOT_FOUND;
    *out = reinterpret_cast<nvmlDevice_t>(d->mig_devices[index].get());
    return NVML_SUCCESS;
  });
}

// A MIG handle answers its ids; any other handle gets INVALID_ARGUMENT.
static nvmlReturn_t InstanceId(const char* sym, nvmlDevice_t h, unsigned* out,
                               std::optional<unsigned> Device::*field) {
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!out || !(d->*field)) return NVML_ERROR_INVALID_ARGUMENT;
    *out = *(d->*field);
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned int* id) {
  return InstanceId("nvmlDeviceGetGpuInstanceId", h, id, &Device::gpu_instance_id);
}
MOCK_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned int* id) {
  return InstanceId("nvmlDeviceGetComputeInstanceId", h, id, &Device::compute_instance_id);
}

// ---------------------------------------------------------------------------
// Event sets (README "Events"): a device's `events` are delivered to a set
// it is registered on, each once, from its `at_s` on; only events at or
// after the registration count, as NVML records only those.

namespace {

struct EventSet {
  std::mutex mu;
  struct Registration {
    const Device* device;  // the base device: its address is the handle
    unsigned long long types;
    double since_s;
  };
  std::vector<Registration> regs;
  std::set<std::pair<const Device*, size_t>> delivered;
};

// Every type the mock can deliver: the bits of nvml-abi.md's table.
constexpr unsigned long long kMockEventTypes = 0xFF9FULL;

bool NextEvent(EventSet& set, const Scenario& s, nvmlEventData_t* data) {
  std::lock_guard<std::mutex> lock(set.mu);
  const double t = SecondsSinceInit(s);
  for (const auto& r : set.regs) {
    for (size_t k = 0; k < r.device->events.size(); ++k) {
      const Device::Event& e = r.device->events[k];
      if (e.at_s > t || e.at_s < r.since_s || !(e.type & r.types)) continue;
      if (!set.delivered.insert({r.device, k}).second) continue;
      *data = nvmlEventData_t{};
      data->device = reinterpret_cast<nvmlDevice_t>(const_cast<Device*>(r.device));
      data->eventType = e.type;
      data->eventData = e.data;
      data->gpuInstanceId = NVML_MIG_ID_NONE;
      data->computeInstanceId = NVML_MIG_ID_NONE;
      return true;
    }
  }
  return false;
}

// A GPU on the set that fell off the bus (its `lost`, now): NVML's wait
// then returns GPU_IS_LOST at once, on every call, until the set is made
// again without it.
bool AnyLost(EventSet& set, const Scenario& s) {
  std::lock_guard<std::mutex> lock(set.mu);
  for (const auto& r : set.regs)
    if (Current(s, r.device)->lost) return true;
  return false;
}

}  // namespace

MOCK_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  const char* sym = "nvmlEventSetCreate";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    if (!set) return NVML_ERROR_INVALID_ARGUMENT;
    // Never freed (nvmlEventSetFree only forgets it): a waiter may be inside.
    *set = reinterpret_cast<nvmlEventSet_t>(new EventSet());
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t h, unsigned long long types,
                                                  nvmlEventSet_t set) {
  const char* sym = "nvmlDeviceRegisterEvents";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Device* d = nullptr;
    if (nvmlReturn_t r = Enter(sym, h, &d)) return r;
    if (!set) return NVML_ERROR_INVALID_ARGUMENT;
    // As NVML: one unsupported bit and none of them is registered.
    if (types & ~kMockEventTypes) return NVML_ERROR_NOT_SUPPORTED;
    auto* es = reinterpret_cast<EventSet*>(set);
    std::lock_guard<std::mutex> lock(es->mu);
    es->regs.push_back({FindDevice(*g_state.load(), h), types, SecondsSinceInit(*g_state.load())});
    return NVML_SUCCESS;
  });
}

MOCK_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                             unsigned int timeoutms) {
  const char* sym = "nvmlEventSetWait_v2";
  return Guard(sym, [&]() -> nvmlReturn_t {
    const Scenario* s = nullptr;
    if (nvmlReturn_t r = EnterSystem(sym, &s)) return r;
    if (!set || !data) return NVML_ERROR_INVALID_ARGUMENT;
    auto* es = reinterpret_cast<EventSet*>(set);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutms);
    for (;;) {
      if (AnyLost(*es, *s)) return NVML_ERROR_GPU_IS_LOST;
      if (NextEvent(*es, *s, data)) return NVML_SUCCESS;
      if (std::chrono::steady_clock::now() >= until) return NVML_ERROR_TIMEOUT;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

MOCK_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  return set ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}
