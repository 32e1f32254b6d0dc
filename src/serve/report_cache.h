// The last report `gpu-triage serve` collected, and the one collection that
// may run at a time.
//
// A scrape asks for the report with a deadline (its scrape timeout). A
// report younger than max_age is returned at once. Otherwise a collection
// is started (unless one is running: never two at once) and the scrape
// waits for it only until its deadline; if the collection is not done by
// then, the last report is returned and the caller tells its age.
//
// A collection that leaves a thread stuck inside NVML (a hung GPU) costs one
// thread for good, so after one the next waits stuck_backoff, and after
// max_abandoned of them the collector stops (halted) and the last report is
// served from then on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "render/prometheus.h"

namespace gt {

/// One collection, rendered once for every scrape that reads it.
struct CachedReport {
  std::string metrics;  ///< the report's Prometheus text (render_prometheus)
  std::string json;     ///< the report as JSON (render_json), for /healthz
  std::string verdict;  ///< verdict_word(): OK, WARNING, CRITICAL, UNKNOWN
  std::optional<std::string> hostname;
  std::chrono::steady_clock::time_point finished;
};

struct ReportCacheOptions {
  std::chrono::milliseconds max_age{10000};        ///< younger reports are served as they are
  std::chrono::milliseconds stuck_backoff{60000};  ///< pause after a collection got stuck
  uint64_t max_abandoned = 16;                     ///< stuck collections before halting
};

class ReportCache {
 public:
  struct Collected {
    std::shared_ptr<const CachedReport> report;
    bool abandoned_threads = false;  ///< a thread is still stuck inside NVML
  };
  /// Runs one collection; must not block past its own deadlines.
  using CollectFn = std::function<Collected()>;

  ReportCache(CollectFn collect, ReportCacheOptions options);
  /// Stops the worker thread (waits for a running collection).
  ~ReportCache();
  ReportCache(const ReportCache&) = delete;
  ReportCache& operator=(const ReportCache&) = delete;

  /// Starts a collection now, unless one is running (at start-up).
  void refresh();

  /// The newest report, after collecting a new one first when it is older
  /// than max_age, waiting at most `wait` for that. Null when no collection
  /// has finished yet.
  std::shared_ptr<const CachedReport> get(std::chrono::milliseconds wait);

  /// serve's own metrics, the report age counted from `now`.
  ServeMetrics stats(std::chrono::steady_clock::time_point now) const;

 private:
  void run_worker();
  /// With mu_ held: starts a collection when allowed and none runs.
  void request_locked(std::chrono::steady_clock::time_point now);

  CollectFn collect_;
  ReportCacheOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;  ///< the worker waits for a request
  std::condition_variable done_cv_;  ///< scrapes wait for a collection
  std::shared_ptr<const CachedReport> latest_;
  bool requested_ = false;
  bool in_progress_ = false;
  bool stop_ = false;
  uint64_t generation_ = 0;  ///< collections finished
  uint64_t abandoned_ = 0;
  std::optional<std::chrono::steady_clock::time_point> not_before_;  ///< stuck backoff
  std::thread worker_;
};

}  // namespace gt
