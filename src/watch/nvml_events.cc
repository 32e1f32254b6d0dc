#include "watch/nvml_events.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "model/xid_catalog.h"

namespace gt {

struct NvmlEventWatcher::State {
  std::mutex mu;
  bool registering = true;
  bool xid_registered = false;
  std::string why_not = "NVML events: registering";
  std::vector<std::tuple<unsigned long long, unsigned long long, uint32_t>> queue;
  std::set<std::tuple<unsigned long long, unsigned long long, uint32_t>> said;
  uint64_t folded = 0;  ///< repeats of a key already said
};

namespace {

using State = NvmlEventWatcher::State;

constexpr unsigned long long kTypes[] = {
    nvmlEventTypeXidCriticalError, nvmlEventTypeDoubleBitEccError, nvmlEventTypeSingleBitEccError,
    nvmlEventTypeClock, nvmlEventTypePowerSourceChange};
/// Bounds the queue between two drains: a storm beyond this is folded anyway.
constexpr size_t kMaxQueued = 1024;

void set_why(State& st, std::string why) {
  std::lock_guard<std::mutex> l(st.mu);
  st.registering = false;
  st.why_not = std::move(why);
}

/// A set and what went onto it.
struct Registered {
  nvmlEventSet_t set = nullptr;
  std::vector<std::pair<nvmlDevice_t, uint32_t>> handles;
  bool xid = false;
  nvmlReturn_t last = NVML_ERROR_NOT_SUPPORTED;  ///< the last failed Xid registration
};

/// Registers every type on every GPU; false when no set could be made (why set).
bool register_all(const NvmlApi& api, const std::vector<uint32_t>& gpus, State& st,
                  Registered& reg) {
  reg = Registered{};
  if (nvmlReturn_t r = api.event_set_create.fn(&reg.set); r != NVML_SUCCESS) {
    set_why(st, "NVML events: nvmlEventSetCreate returned " + NvmlLibrary::return_name(r));
    return false;
  }
  for (uint32_t i : gpus) {
    nvmlDevice_t dev = nullptr;
    if (api.handle_by_index.fn(i, &dev) != NVML_SUCCESS) continue;
    reg.handles.emplace_back(dev, i);
    for (unsigned long long type : kTypes) {
      const nvmlReturn_t r = api.register_events.fn(dev, type, reg.set);
      if (type == nvmlEventTypeXidCriticalError && r == NVML_SUCCESS) reg.xid = true;
      if (type == nvmlEventTypeXidCriticalError && r != NVML_SUCCESS) reg.last = r;
      if (r == NVML_ERROR_GPU_IS_LOST) break;  // fell off the bus: left out of the set
    }
  }
  std::lock_guard<std::mutex> l(st.mu);
  st.registering = false;
  st.xid_registered = reg.xid;
  if (reg.xid)
    st.why_not = "";
  else if (reg.last == NVML_ERROR_GPU_IS_LOST)
    st.why_not = "NVML events: no GPU left to register (nvmlDeviceRegisterEvents: " +
                 NvmlLibrary::return_name(reg.last) + ")";
  else
    st.why_not = "NVML events not supported here (nvmlDeviceRegisterEvents: " +
                 NvmlLibrary::return_name(reg.last) + ")";
  return true;
}

/// The pause before the n-th (1, 2, ...) set made again while waits still
/// fail at once.
std::chrono::milliseconds lost_backoff(unsigned n) {
  const unsigned doublings = std::min(n - 1, 16u);
  return std::chrono::milliseconds(
      std::min<uint64_t>(uint64_t{NvmlEventWatcher::kLostBackoffMs} << doublings,
                         NvmlEventWatcher::kMaxLostBackoffMs));
}

void queue_event(State& st, const Registered& reg, const nvmlEventData_t& d) {
  uint32_t index = UINT32_MAX;
  for (const auto& [h, i] : reg.handles)
    if (h == d.device) index = i;
  std::lock_guard<std::mutex> l(st.mu);
  auto key = std::make_tuple(d.eventType, d.eventData, index);
  if (!st.said.insert(key).second || st.queue.size() >= kMaxQueued) {
    ++st.folded;
    return;
  }
  st.queue.push_back(key);
}

void wait_loop(std::shared_ptr<NvmlLibrary> lib, std::vector<uint32_t> gpus,
               std::shared_ptr<State> st, EventPacer pacer) {
  const NvmlApi& api = lib->api();
  if (api.init.fn() != NVML_SUCCESS) return set_why(*st, "NVML events: nvmlInit failed");
  Registered reg;
  if (!register_all(api, gpus, *st, reg)) return;
  unsigned lost_in_a_row = 0;
  while (pacer.go_on()) {
    nvmlEventData_t d{};
    const nvmlReturn_t r = api.event_set_wait.fn(reg.set, &d, pacer.wait_timeout_ms);
    if (r == NVML_ERROR_GPU_IS_LOST) {
      // A GPU on the set fell off the bus (the tick's collection says it):
      // the set again without it, after a pause when that did not help.
      if (lost_in_a_row++ > 0) pacer.sleep(lost_backoff(lost_in_a_row - 1));
      api.event_set_free.fn(reg.set);
      if (!register_all(api, gpus, *st, reg)) return;
      continue;
    }
    lost_in_a_row = 0;
    if (r == NVML_ERROR_TIMEOUT) continue;
    if (r != NVML_SUCCESS) {
      set_why(*st,
              "NVML events stopped: nvmlEventSetWait_v2 returned " + NvmlLibrary::return_name(r));
      break;
    }
    queue_event(*st, reg, d);
  }
  api.event_set_free.fn(reg.set);
}

std::string xid_words(unsigned long long code) {
  if (code == kNvmlUnknownXid) return "Xid of unknown number (NVML reports 999)";
  std::string out = "Xid " + std::to_string(code);
  if (const XidEntry* x = find_xid(static_cast<int>(code)); x && *x->description)
    out += " (" + std::string(x->description) + ")";
  else
    out += " (not in the catalogue)";
  return out;
}

}  // namespace

NvmlEventWatcher::NvmlEventWatcher(std::shared_ptr<NvmlLibrary> lib)
    : lib_(std::move(lib)), state_(std::make_shared<State>()) {
  if (!lib_) {
    state_->registering = false;
    state_->why_not = "NVML library not loaded";
    return;
  }
  const NvmlApi& api = lib_->api();
  if (!api.event_set_create || !api.register_events || !api.event_set_wait || !api.event_set_free) {
    state_->registering = false;
    state_->why_not = "this NVML has no event sets (nvmlEventSetWait_v2 missing)";
  }
}

EventPacer EventPacer::real() {
  EventPacer p;
  p.wait_timeout_ms = NvmlEventWatcher::kWaitTimeoutMs;
  p.sleep = [](std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); };
  p.go_on = [] { return true; };
  return p;
}

std::optional<std::vector<uint32_t>> NvmlEventWatcher::gpus_to_watch(const NodeSnapshot& snap) {
  {
    std::lock_guard<std::mutex> l(state_->mu);
    if (!state_->registering) return std::nullopt;  // nothing to start (why_not says)
  }
  if (!snap.nvml.initialized || snap.gpus.empty()) return std::nullopt;
  std::vector<uint32_t> gpus;
  for (const GpuState& g : snap.gpus)
    if (g.status == GpuStatus::kOk) gpus.push_back(g.index);
  started_ = true;
  return gpus;
}

void NvmlEventWatcher::start(const NodeSnapshot& snap) {
  if (std::optional<std::vector<uint32_t>> gpus = gpus_to_watch(snap))
    std::thread(wait_loop, lib_, std::move(*gpus), state_, EventPacer::real()).detach();
}

void NvmlEventWatcher::run_here(const NodeSnapshot& snap, const EventPacer& pacer) {
  if (std::optional<std::vector<uint32_t>> gpus = gpus_to_watch(snap))
    wait_loop(lib_, std::move(*gpus), state_, pacer);
}

bool NvmlEventWatcher::settled() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return !state_->registering;
}

bool NvmlEventWatcher::supported() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->xid_registered;
}

std::string NvmlEventWatcher::why_not() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->why_not;
}

std::vector<Change> NvmlEventWatcher::drain(int64_t now) {
  std::vector<std::tuple<unsigned long long, unsigned long long, uint32_t>> q;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    q.swap(state_->queue);
  }
  std::vector<Change> out;
  for (const auto& [type, data, gpu] : q) out.push_back(nvml_event_change(type, data, gpu, now));
  return out;
}

Change nvml_event_change(unsigned long long type, unsigned long long data, uint32_t gpu,
                         int64_t now) {
  Change c;
  c.time_unix_ms = now;
  c.kind = ChangeKind::kEvent;
  if (gpu != UINT32_MAX) c.gpu_index = gpu;
  if (type == nvmlEventTypeXidCriticalError) {
    c.id = "gpu.xid." + std::to_string(data);
    const XidEntry* x = find_xid(static_cast<int>(data));
    c.severity = x ? x->severity : Severity::kWarning;
    c.text = xid_words(data);
  } else if (type == nvmlEventTypeDoubleBitEccError) {
    c.id = "ecc.double_bit_event";
    c.severity = Severity::kCritical;
    c.text = "double-bit (uncorrectable) ECC error";
  } else if (type == nvmlEventTypeSingleBitEccError) {
    c.id = "ecc.single_bit_event";
    c.severity = Severity::kInfo;
    c.text = "single-bit (corrected) ECC error";
  } else if (type == nvmlEventTypeClock) {
    c.id = "clocks.event";
    c.text = "clocks changed";
  } else if (type == nvmlEventTypePowerSourceChange) {
    c.id = "power.source_change";
    c.severity = Severity::kWarning;
    c.text = "power source changed";
  } else {
    c.id = "nvml.event";
    c.text = "NVML event type " + std::to_string(type);
  }
  c.text += " (NVML event)";
  return c;
}

}  // namespace gt
