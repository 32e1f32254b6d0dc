// Driver events through NVML event sets (nvml-abi.md "Events"): one set,
// each GPU registered for Xids, single- and double-bit ECC errors, clock
// changes and power-source changes, each type on its own (a GPU that
// rejects one type, as GeForce boards reject ECC, still gives the others),
// and one thread waiting in nvmlEventSetWait_v2 with a 500 ms timeout.
//
// Registration and waiting run on that thread, never on the loop's: a
// wedged driver can block either, and then only that thread is stuck. No
// registration at all (an old driver, MIG, a container without permission,
// NOT_SUPPORTED everywhere) leaves supported() false and why_not() saying
// why: the view then says events come from the kernel log only.
//
// Each (GPU, type, Xid) is said once: later ones of the same key are
// counted, not repeated (the storm rule of the kernel log).
//
// A GPU that falls off the bus after registration makes every wait return
// GPU_IS_LOST at once. The set is then made again without it (registering
// a lost GPU fails); while the waits still fail at once, the thread sleeps
// between them, doubling from kLostBackoffMs to kMaxLostBackoffMs, so it
// never spins on exactly the node the watch is for.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.h"
#include "sources/nvml/nvml_api.h"
#include "watch/changes.h"

namespace gt {

/// How the waiting thread passes time when NVML does not wait for it: the
/// real clock in watch, a fake one in the tests (no timed test).
struct EventPacer {
  unsigned wait_timeout_ms = 500;  ///< nvmlEventSetWait_v2's timeout
  /// Sleeps (a back-off after waits that failed at once).
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Asked before each wait; false ends the loop (watch: never).
  std::function<bool()> go_on;
  static EventPacer real();
};

class NvmlEventWatcher {
 public:
  static constexpr unsigned kWaitTimeoutMs = 500;
  static constexpr unsigned kLostBackoffMs = 500;
  static constexpr unsigned kMaxLostBackoffMs = 30000;

  explicit NvmlEventWatcher(std::shared_ptr<NvmlLibrary> lib);
  /// Starts registering and waiting, for the GPUs that answered in `snap`.
  /// Does nothing (started() stays false) until NVML is up with GPUs.
  void start(const NodeSnapshot& snap);
  /// What start() runs on its thread, here on the caller's, paced by
  /// `pacer` until its go_on() says stop (for the tests).
  void run_here(const NodeSnapshot& snap, const EventPacer& pacer);
  bool started() const { return started_; }
  /// Registration finished, or will never start (no library, no symbols).
  bool settled() const;
  /// Some GPU is registered for Xid events.
  bool supported() const;
  /// Why events are not (yet) delivered; "" when supported().
  std::string why_not() const;
  /// The events that arrived since the last call, each key once.
  std::vector<Change> drain(int64_t now_unix_ms);

  struct State;  // shared with the waiting thread

 private:
  /// The GPUs to register (marks it started), or nullopt: nothing to start.
  std::optional<std::vector<uint32_t>> gpus_to_watch(const NodeSnapshot& snap);

  std::shared_ptr<NvmlLibrary> lib_;
  std::shared_ptr<State> state_;
  bool started_ = false;
};

/// One event as a change (GPU index given; server attributed by the caller).
Change nvml_event_change(unsigned long long type, unsigned long long data, uint32_t gpu,
                         int64_t now_unix_ms);

}  // namespace gt
