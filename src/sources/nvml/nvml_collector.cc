// See nvml_collector.h for the threading contract. Value conventions:
// NOT_SUPPORTED, FUNCTION_NOT_FOUND and DEPRECATED mean "absent" (the field
// stays null, no error); GPU_IS_LOST marks the GPU lost and stops querying
// it; any other failure leaves the field null and is recorded in
// GpuState::errors with the call's name.
#include "sources/nvml/nvml_collector.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "model/limits.h"
#include "sources/nvml/nvml_call.h"
#include "sources/nvml/nvml_driver_signals.h"
#include "sources/nvml/nvml_fabric.h"
#include "sources/nvml/nvml_limit_time.h"
#include "sources/nvml/nvml_links.h"
#include "sources/nvml/nvml_mig.h"
#include "sources/nvml/nvml_peers.h"

namespace gt {
namespace {

using Clock = std::chrono::steady_clock;

struct Slot {
  GpuState state;
  std::string current_call;  // copied: the worker's string may not outlive it
  bool done = false;
  /// The GPU's handle once its worker has it, so the other workers' pair
  /// calls need not ask for it again (each ask can cost as much as the first).
  std::optional<nvmlDevice_t> handle;
};

/// State shared between the caller and every worker; kept alive by
/// shared_ptr so an abandoned worker never touches freed memory.
struct Shared {
  std::shared_ptr<NvmlLibrary> lib;
  NvmlCollectOptions options;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Slot> slots;
  int pending = 0;
  /// The driver's version string, which picks field numberings (8.2).
  std::optional<std::string> driver_version;
};

const char* compute_mode_name(int m) {
  switch (m) {
    case NVML_COMPUTEMODE_DEFAULT:
      return "Default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD:
      return "Exclusive_Thread";
    case NVML_COMPUTEMODE_PROHIBITED:
      return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS:
      return "Exclusive_Process";
  }
  return "Unknown";
}

SampleStats stats_of(const std::vector<unsigned>& v) {
  SampleStats s;
  s.samples = static_cast<int>(v.size());
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (unsigned x : v) sum += x;
  s.mean = sum / v.size();
  return s;
}

std::optional<uint32_t> mig_id(uint32_t v) {
  if (v == 0xFFFFFFFFu) return std::nullopt;
  return v;
}

/// Queries one GPU. Every NVML call goes through caller_ (nvml_call.h),
/// which publishes the state so far and the name of the call about to be
/// made.
class GpuQuery {
 public:
  GpuQuery(std::shared_ptr<Shared> shared, unsigned index)
      : sh_(std::move(shared)),
        api_(sh_->lib->api()),
        index_(index),
        c_(api_, g_, [this](const char* call) { publish(call); }) {
    g_.index = index;
  }

  void run() {
    if (!get_handle()) return finish();
    Clock::time_point t0 = Clock::now();
    sample();
    window_start();
    identity();
    memory();
    thermals_and_power();
    read_thermal(c_, dev_);
    modes();
    ecc_and_rows();
    driver_signals();
    pcie_and_clocks();
    processes();
    // Inside the sample window, so the pairs cost no time of their own.
    if (sh_->options.peers)
      g_.peers = read_peers(c_, dev_, index_, static_cast<unsigned>(sh_->slots.size()),
                            [this](unsigned j) {
                              std::lock_guard<std::mutex> lock(sh_->mu);
                              return sh_->slots[j].handle;
                            });
    finish_window(t0);
    finish();
  }

 private:
  void publish(const char* call) {
    std::lock_guard<std::mutex> lock(sh_->mu);
    sh_->slots[index_].state = g_;
    sh_->slots[index_].current_call = call ? call : "";
  }

  void finish() {
    std::lock_guard<std::mutex> lock(sh_->mu);
    Slot& slot = sh_->slots[index_];
    slot.state = g_;
    slot.current_call.clear();
    slot.done = true;
    --sh_->pending;
    sh_->cv.notify_all();
  }

  template <typename Sig, typename... Args>
  bool call(const NvmlFn<Sig>& f, Args... args) {
    return c_.call(f, args...);
  }

  bool get_handle() {
    publish(api_.handle_by_index.symbol);
    nvmlReturn_t r = api_.handle_by_index.fn(index_, &dev_);
    if (r == NVML_SUCCESS) {
      std::lock_guard<std::mutex> lock(sh_->mu);
      sh_->slots[index_].handle = dev_;
      return true;
    }
    g_.status = r == NVML_ERROR_GPU_IS_LOST ? GpuStatus::kLost : GpuStatus::kInaccessible;
    g_.status_detail = std::string(api_.handle_by_index.symbol) + " returned " +
                       NvmlLibrary::return_name(r) + ": " + NvmlLibrary::describe(r);
    return false;
  }

  /// One sample: utilization and the clock event reasons mask. Returns
  /// whether anything was read (so the window is worth waiting for).
  bool sample() {
    bool any = false;
    nvmlUtilization_t u{};
    if (call(api_.utilization, dev_, &u)) {
      gpu_samples_.push_back(u.gpu);
      mem_samples_.push_back(u.memory);
      any = true;
    }
    unsigned long long mask = 0;
    if (call(api_.clock_reasons, dev_, &mask)) {
      g_.clock_event_reasons_samples.push_back(mask);
      g_.clock_event_reasons = mask;
      any = true;
    }
    return any;
  }

  /// The counters whose growth over the window is the signal.
  void window_start() {
    limit_start_ = read_limit_counters(c_, dev_, reason_time_fields(sh_->driver_version));
    g_.nvlinks = read_nvlinks(c_, dev_);
  }

  bool window_has_counters() const {
    for (const auto& r : limit_start_)
      if (r) return true;
    return g_.nvlinks.has_value();
  }

  void finish_window(Clock::time_point t0) {
    const int n = utilization_sample_count(sh_->options.sample_window);
    const bool sampled = !gpu_samples_.empty() || !g_.clock_event_reasons_samples.empty();
    if (n > 1 && (sampled || window_has_counters())) {
      for (int k = 1; k < n && !c_.lost(); ++k) {
        std::this_thread::sleep_until(t0 + sh_->options.sample_window * k / (n - 1));
        sample();
      }
      window_end();
    }
    if (gpu_samples_.empty()) return;  // unsupported (MIG) or failed
    g_.utilization_gpu_pct = stats_of(gpu_samples_);
    g_.utilization_memory_pct = stats_of(mem_samples_);
  }

  void window_end() {
    if (c_.lost()) return;
    LimitCounters end = read_limit_counters(c_, dev_, reason_time_fields(sh_->driver_version));
    apply_limit_shares(limit_start_, end, g_.limit_time);
    if (g_.nvlinks) read_nvlinks_window_end(c_, dev_, *g_.nvlinks);
  }

  void identity() {
    char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    if (call(api_.name, dev_, buf, sizeof buf)) g_.name = buf;
    if (call(api_.uuid, dev_, buf, sizeof buf)) g_.uuid = buf;
    if (call(api_.serial, dev_, buf, sizeof buf)) g_.serial = buf;
    if (call(api_.vbios_version, dev_, buf, sizeof buf)) g_.vbios_version = buf;
    // Not supported on some boards; an empty answer is no part number either.
    char part[NVML_DEVICE_PART_NUMBER_BUFFER_SIZE];
    if (call(api_.board_part_number, dev_, part, sizeof part)) {
      part[sizeof part - 1] = '\0';
      if (part[0] != '\0') g_.board_part_number = std::string(part);
    }
    nvmlPciInfo_t pci{};
    if (call(api_.pci_info, dev_, &pci)) {
      pci.busId[sizeof pci.busId - 1] = '\0';
      g_.pci_bus_id = pci.busId;
      g_.pci_device_id = pci.pciDeviceId;
    }
  }

  void memory() {
    std::optional<MemoryBytes> b = read_memory(c_, dev_, MemoryV1Fallback::kAlways);
    if (!b) return;
    g_.memory_total_bytes = b->total;
    g_.memory_used_bytes = b->used;
    g_.memory_free_bytes = b->free;
    if (b->reserved) g_.memory_reserved_bytes = b->reserved;
  }

  void thermals_and_power() {
    nvmlTemperature_v1_t t{};
    t.version = nvmlTemperature_v1;
    t.sensorType = NVML_TEMPERATURE_GPU;
    unsigned u = 0;
    if (call(api_.temperature_v, dev_, &t)) {
      g_.temperature_c = t.temperature;
    } else if (call(api_.temperature, dev_, NVML_TEMPERATURE_GPU, &u)) {
      g_.temperature_c = static_cast<int32_t>(u);
    }
    if (call(api_.power_usage, dev_, &u)) g_.power_draw_w = u / 1000.0;
    if (call(api_.enforced_power_limit, dev_, &u) || call(api_.power_management_limit, dev_, &u))
      g_.power_limit_w = u / 1000.0;
    int p = 0;
    if (call(api_.performance_state, dev_, &p) && p >= 0 && p < 16)
      g_.pstate = static_cast<uint32_t>(p);
    if (call(api_.fan_speed, dev_, &u)) g_.fan_speed_pct = u;
  }

  void modes() {
    int a = 0, b = 0;
    unsigned cur = 0, pend = 0;
    if (call(api_.persistence_mode, dev_, &a)) g_.persistence_mode = a == NVML_FEATURE_ENABLED;
    if (call(api_.compute_mode, dev_, &a)) g_.compute_mode = compute_mode_name(a);
    if (call(api_.mig_mode, dev_, &cur, &pend)) {
      g_.mig_mode_current = cur == 1;
      g_.mig_mode_pending = pend == 1;
    }
    if (call(api_.ecc_mode, dev_, &a, &b)) {
      g_.ecc_mode_current = a == NVML_FEATURE_ENABLED;
      g_.ecc_mode_pending = b == NVML_FEATURE_ENABLED;
    }
  }

  std::optional<uint64_t> ecc_count(int type, int counter) {
    unsigned long long v = 0;
    if (call(api_.total_ecc_errors, dev_, type, counter, &v)) return v;
    return std::nullopt;
  }

  std::optional<uint32_t> retired_count(int cause) {
    unsigned count = 0;
    std::optional<nvmlReturn_t> r = c_.raw(api_.retired_pages, dev_, cause, &count, nullptr);
    if (!r) return std::nullopt;
    // pageCount 0 asks for the size: SUCCESS when none, INSUFFICIENT_SIZE
    // with the count filled in otherwise.
    if (*r == NVML_SUCCESS || *r == NVML_ERROR_INSUFFICIENT_SIZE) return count;
    c_.check(api_.retired_pages.symbol, *r);
    return std::nullopt;
  }

  void ecc_and_rows() {
    g_.ecc.volatile_corrected = ecc_count(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
    g_.ecc.volatile_uncorrected = ecc_count(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
    g_.ecc.aggregate_corrected = ecc_count(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
    g_.ecc.aggregate_uncorrected =
        ecc_count(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
    g_.retired_pages.single_bit =
        retired_count(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    g_.retired_pages.double_bit = retired_count(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    int pending = 0;
    if (call(api_.retired_pages_pending, dev_, &pending))
      g_.retired_pages.pending = pending == NVML_FEATURE_ENABLED;
    unsigned corr = 0, unc = 0, pend = 0, fail = 0;
    if (call(api_.remapped_rows, dev_, &corr, &unc, &pend, &fail)) {
      g_.remapped_rows = {corr, unc, pend != 0, fail != 0};
    }
    read_row_remapper_histogram(c_, dev_);
  }

  void driver_signals() {
    read_recovery(c_, dev_);
    read_fabric(c_, dev_);
  }

  void pcie_and_clocks() {
    unsigned v = 0;
    if (call(api_.pcie_curr_gen, dev_, &v)) g_.pcie.current_gen = v;
    if (call(api_.pcie_max_gen, dev_, &v)) g_.pcie.max_gen = v;
    if (call(api_.pcie_gpu_max_gen, dev_, &v)) g_.pcie.device_max_gen = v;
    if (call(api_.pcie_curr_width, dev_, &v)) g_.pcie.current_width = v;
    if (call(api_.pcie_max_width, dev_, &v)) g_.pcie.max_width = v;
    if (call(api_.pcie_replay_counter, dev_, &v)) g_.pcie.replay_counter = v;
    // The current reasons mask is read with every sample (sample()).
    unsigned long long mask = 0;
    if (call(api_.clock_reasons_supported, dev_, &mask)) g_.clock_event_reasons_supported = mask;
  }

  /// The NVML count-then-fill protocol; nullopt when the query failed.
  std::optional<std::vector<GpuProcess>> list(const NvmlFn<DevFnProcs>& f, nvmlDevice_t h) {
    const int rec = api_.process_record_bytes;
    unsigned count = 0;
    std::optional<nvmlReturn_t> r = c_.raw(f, h, &count, nullptr);
    if (!r) return std::nullopt;
    if (*r == NVML_SUCCESS) return std::vector<GpuProcess>{};
    for (int attempt = 0; attempt < 3 && *r == NVML_ERROR_INSUFFICIENT_SIZE; ++attempt) {
      // Processes can start between the calls: leave room (nvitop: 2n+5).
      unsigned cap = count * 2 + 5;
      std::vector<unsigned char> buf(static_cast<size_t>(cap) * rec);
      count = cap;
      r = c_.raw(f, h, &count, static_cast<void*>(buf.data()));
      if (!r) return std::nullopt;
      if (*r == NVML_SUCCESS) {
        std::vector<GpuProcess> out;
        for (unsigned i = 0; i < std::min(count, cap); ++i)
          out.push_back(parse_process_record(&buf[static_cast<size_t>(i) * rec], rec));
        return out;
      }
    }
    if (!c_.check(f.symbol, *r) && *r == NVML_ERROR_NOT_SUPPORTED) return std::vector<GpuProcess>{};
    return std::nullopt;
  }

  static void merge(std::vector<GpuProcess>& into, std::vector<GpuProcess> from, const char* type) {
    for (GpuProcess& p : from) {
      auto same = std::find_if(into.begin(), into.end(),
                               [&](const GpuProcess& q) { return q.pid == p.pid; });
      if (same != into.end()) {
        same->type += "+" + std::string(type);
        continue;
      }
      p.type = type;
      into.push_back(std::move(p));
    }
  }

  /// Compute and graphics lists of one handle, merged; nullopt when both
  /// failed. `incomplete` is set when one of them failed.
  std::optional<std::vector<GpuProcess>> list_both(nvmlDevice_t h, bool* incomplete) {
    std::optional<std::vector<GpuProcess>> compute = list(api_.compute_processes, h);
    std::optional<std::vector<GpuProcess>> graphics = list(api_.graphics_processes, h);
    if (!compute && !graphics) return std::nullopt;
    if (incomplete)
      *incomplete = (api_.compute_processes && !compute) || (api_.graphics_processes && !graphics);
    std::vector<GpuProcess> all;
    if (compute) merge(all, std::move(*compute), "compute");
    if (graphics) merge(all, std::move(*graphics), "graphics");
    return all;
  }

  void processes() {
    std::optional<std::vector<GpuProcess>> compute = list(api_.compute_processes, dev_);
    std::optional<std::vector<GpuProcess>> graphics = list(api_.graphics_processes, dev_);
    std::optional<std::vector<GpuProcess>> all;
    if (!compute && !graphics) {
      if (!c_.lost()) g_.processes_error = "the process queries failed or are not exported";
    } else {
      // One query failing makes the list incomplete: say so (free will not
      // signal a launcher whose other processes could be hiding there).
      if (api_.compute_processes && !compute)
        g_.processes_error = "the compute process query failed: the list is incomplete";
      if (api_.graphics_processes && !graphics)
        g_.processes_error = "the graphics process query failed: the list is incomplete";
      all.emplace();
      if (compute) merge(*all, std::move(*compute), "compute");
      if (graphics) merge(*all, std::move(*graphics), "graphics");
    }
    mig_processes(all);
    if (!all) return;
    g_.process_record_bytes = api_.process_record_bytes;
    for (GpuProcess& p : *all) {
      // A struct-layout mismatch yields PIDs 0 or 0xFFFFFFFF (nvitop#75).
      if (p.pid == 0 || p.pid == 0xFFFFFFFFu)
        g_.errors.push_back("process list: implausible PID " + std::to_string(p.pid) +
                            " (process record layout mismatch?)");
    }
    g_.processes = all;
    if (!sh_->options.enrich_process) return;
    for (GpuProcess& p : *g_.processes) {
      std::string what = "reading /proc/" + std::to_string(p.pid);
      publish(what.c_str());  // the slot copies the name only while we live
      sh_->options.enrich_process(p);
    }
    publish(nullptr);
  }

  /// In MIG mode: reads the MIG devices and merges their processes into
  /// the parent's list, so each appears once there with its instance ids
  /// (the parent lists them all only to privileged callers).
  void mig_processes(std::optional<std::vector<GpuProcess>>& all) {
    if (g_.mig_mode_current != true || c_.lost()) return;
    bool any_incomplete = false;
    ProcessLister lister = [&](nvmlDevice_t h) {
      bool incomplete = false;
      auto ps = list_both(h, &incomplete);
      any_incomplete = any_incomplete || incomplete;
      return ps;
    };
    std::optional<MigRead> mig = read_mig_devices(c_, dev_, lister);
    if (!mig) return;
    g_.mig_devices = mig->devices;
    const bool parent_failed = !all.has_value();
    if (!all) all.emplace();
    merge_mig_processes(*all, mig->processes);
    // Every process on a MIG GPU runs in an instance: when every instance
    // was listed, the parent's own failure hides nothing.
    if (parent_failed && mig->all_processes_listed && !any_incomplete && !mig->devices.empty())
      g_.processes_error.reset();
  }

  std::shared_ptr<Shared> sh_;
  const NvmlApi& api_;
  unsigned index_;
  nvmlDevice_t dev_ = nullptr;
  GpuState g_;
  NvmlCaller c_;
  std::vector<unsigned> gpu_samples_, mem_samples_;
  LimitCounters limit_start_;
};

/// Node-wide phase: init, versions, count. Runs on its own thread.
struct NodePhase {
  bool done = false;
  const char* current_call = nullptr;
  std::optional<nvmlReturn_t> init_result;
  std::optional<std::string> driver, nvml;
  std::optional<int> cuda;
  std::optional<unsigned> count;
  std::optional<nvmlReturn_t> count_result;
};

void run_node_phase(std::shared_ptr<Shared> sh, std::shared_ptr<NodePhase> np) {
  const NvmlApi& api = sh->lib->api();
  auto set_call = [&](const char* c) {
    std::lock_guard<std::mutex> lock(sh->mu);
    np->current_call = c;
  };
  set_call(api.init.symbol);
  nvmlReturn_t r = api.init.fn();
  NodePhase local;
  local.init_result = r;
  if (r == NVML_SUCCESS) {
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    set_call(api.driver_version.symbol);
    if (api.driver_version && api.driver_version.fn(buf, sizeof buf) == NVML_SUCCESS)
      local.driver = buf;
    set_call(api.nvml_version.symbol);
    if (api.nvml_version && api.nvml_version.fn(buf, sizeof buf) == NVML_SUCCESS) local.nvml = buf;
    int cuda = 0;
    set_call(api.cuda_driver_version.symbol);
    if (api.cuda_driver_version && api.cuda_driver_version.fn(&cuda) == NVML_SUCCESS)
      local.cuda = cuda;
    unsigned count = 0;
    set_call(api.device_count.symbol);
    local.count_result = api.device_count.fn(&count);
    if (*local.count_result == NVML_SUCCESS) local.count = count;
  }
  std::lock_guard<std::mutex> lock(sh->mu);
  *np = local;
  np->done = true;
  sh->cv.notify_all();
}

/// The init outcomes the checks tell apart; NVML's name stays beside it.
NvmlInitError init_error_of(nvmlReturn_t r) {
  switch (r) {
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return NvmlInitError::kVersionMismatch;
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return NvmlInitError::kDriverNotLoaded;
    case NVML_ERROR_NO_PERMISSION:
      return NvmlInitError::kNoPermission;
    case NVML_ERROR_GPU_NOT_FOUND:
      return NvmlInitError::kGpuNotFound;
    default:
      return NvmlInitError::kOtherNvmlError;
  }
}

void record_node_phase(const NodePhase& np, NodeSnapshot& snap) {
  NvmlStatus& st = snap.nvml;
  st.init_return_code = *np.init_result;
  st.initialized = *np.init_result == NVML_SUCCESS;
  if (!st.initialized) {
    st.init_error = init_error_of(*np.init_result);
    st.init_return_name = NvmlLibrary::return_name(*np.init_result);
    st.error_message = "NVML initialization failed: " + NvmlLibrary::describe(*np.init_result);
    return;
  }
  snap.driver_version = np.driver;
  snap.nvml_version = np.nvml;
  if (np.cuda) snap.cuda_driver_version = format_cuda_version(*np.cuda);
  snap.gpu_count = np.count;
  if (!np.count)
    snap.warnings.push_back("nvmlDeviceGetCount failed: " +
                            NvmlLibrary::return_name(*np.count_result));
}

}  // namespace

int utilization_sample_count(std::chrono::milliseconds window) {
  if (window.count() <= 0) return 1;
  // One sample every 200 ms (NVML itself averages over 1/6 s to 1 s), at
  // least 2 and at most 11 over the window.
  return static_cast<int>(std::clamp<int64_t>(window.count() / 200 + 1, 2, 11));
}

std::string format_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

GpuProcess parse_process_record(const unsigned char* rec, int record_bytes) {
  GpuProcess p;
  uint32_t pid = 0;
  uint64_t mem = 0;
  std::memcpy(&pid, rec, 4);
  std::memcpy(&mem, rec + 8, 8);
  p.pid = pid;
  if (mem != NVML_VALUE_NOT_AVAILABLE_ULL) p.used_memory_bytes = mem;
  if (record_bytes >= 24) {
    uint32_t gi = 0, ci = 0;
    std::memcpy(&gi, rec + 16, 4);
    std::memcpy(&ci, rec + 20, 4);
    p.gpu_instance_id = mig_id(gi);
    p.compute_instance_id = mig_id(ci);
  }
  return p;
}

NvmlCollectOutcome collect_nvml(std::shared_ptr<NvmlLibrary> lib, const NvmlCollectOptions& options,
                                NodeSnapshot& snap) {
  const Clock::time_point deadline = Clock::now() + options.timeout;
  auto sh = std::make_shared<Shared>();
  sh->lib = lib;
  sh->options = options;
  NvmlCollectOutcome outcome;

  // Phase 1: init and node-wide facts.
  auto np = std::make_shared<NodePhase>();
  std::thread(run_node_phase, sh, np).detach();
  std::unique_lock<std::mutex> lock(sh->mu);
  if (!sh->cv.wait_until(lock, deadline, [&] { return np->done; })) {
    outcome.abandoned_threads = true;
    outcome.init_returned = [sh, np] {
      std::lock_guard<std::mutex> l(sh->mu);
      return np->done;
    };
    const char* call = np->current_call ? np->current_call : "nvmlInit";
    snap.nvml.error_message = std::string("NVML did not answer within the timeout: stuck in ") +
                              call + " (the driver may be wedged; check dmesg for Xid errors)";
    snap.nvml.init_error = NvmlInitError::kTimeout;
    return outcome;
  }
  record_node_phase(*np, snap);
  if (!snap.nvml.initialized || !snap.gpu_count) return outcome;

  // Phase 2: one thread per GPU, all sharing the deadline.
  if (*snap.gpu_count > kMaxGpus)
    snap.warnings.push_back("nvmlDeviceGetCount said " + std::to_string(*snap.gpu_count) +
                            " GPUs; only the first " + std::to_string(kMaxGpus) + " were queried");
  const unsigned n = std::min(*snap.gpu_count, kMaxGpus);
  sh->slots.resize(n);
  for (const auto& [i, why] : options.skip_gpus) {
    if (i >= n) continue;
    sh->slots[i].done = true;  // never started: nothing to wait for
    sh->slots[i].state.status = GpuStatus::kUnresponsive;
    sh->slots[i].state.status_detail = why;
  }
  sh->pending = static_cast<int>(
      n - std::count_if(sh->slots.begin(), sh->slots.end(), [](const Slot& s) { return s.done; }));
  sh->driver_version = snap.driver_version;
  lock.unlock();
  if (options.parallel) {
    for (unsigned i = 0; i < n; ++i)
      if (!options.skip_gpus.count(i)) std::thread([sh, i] { GpuQuery(sh, i).run(); }).detach();
  } else {
    std::thread([sh, n, skip = options.skip_gpus] {
      for (unsigned i = 0; i < n; ++i)
        if (!skip.count(i)) GpuQuery(sh, i).run();
    }).detach();
  }
  lock.lock();
  sh->cv.wait_until(lock, deadline, [&] { return sh->pending == 0; });
  for (unsigned i = 0; i < n; ++i) {
    Slot& slot = sh->slots[i];
    GpuState g = slot.state;
    g.index = i;
    if (!slot.done) {
      outcome.abandoned_threads = true;
      outcome.gpu_returned[i] = [sh, i] {
        std::lock_guard<std::mutex> l(sh->mu);
        return sh->slots[i].done;
      };
      g.status = GpuStatus::kUnresponsive;
      std::string call = slot.current_call.empty() ? "an NVML call" : slot.current_call;
      g.stuck_in_call = call;
      g.status_detail =
          "no answer within " + std::to_string(options.timeout.count()) + " ms; stuck in " + call;
    }
    snap.gpus.push_back(std::move(g));
  }
  return outcome;
}

}  // namespace gt
