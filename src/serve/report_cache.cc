#include "serve/report_cache.h"

#include <exception>
#include <iostream>

#include "util/terminal_text.h"

namespace gt {

using Clock = std::chrono::steady_clock;

ReportCache::ReportCache(CollectFn collect, ReportCacheOptions options)
    : collect_(std::move(collect)), options_(options), worker_([this] { run_worker(); }) {}

ReportCache::~ReportCache() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  worker_.join();
}

void ReportCache::refresh() {
  std::lock_guard<std::mutex> lock(mu_);
  request_locked(Clock::now());
}

void ReportCache::request_locked(Clock::time_point now) {
  if (in_progress_ || abandoned_ >= options_.max_abandoned) return;
  if (not_before_ && now < *not_before_) return;
  in_progress_ = true;
  requested_ = true;
  work_cv_.notify_one();
}

std::shared_ptr<const CachedReport> ReportCache::get(std::chrono::milliseconds wait) {
  const Clock::time_point now = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  if (latest_ && now - latest_->finished < options_.max_age) return latest_;
  request_locked(now);
  if (in_progress_) {
    const uint64_t gen = generation_;
    done_cv_.wait_until(lock, now + wait, [&] { return generation_ != gen || stop_; });
  }
  return latest_;
}

ServeMetrics ReportCache::stats(Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mu_);
  ServeMetrics m;
  if (latest_) m.report_age_s = std::chrono::duration<double>(now - latest_->finished).count();
  m.collection_in_progress = in_progress_;
  m.collections = generation_;
  m.collections_abandoned = abandoned_;
  m.collector_halted = abandoned_ >= options_.max_abandoned;
  return m;
}

void ReportCache::run_worker() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return requested_ || stop_; });
    if (stop_) return;
    requested_ = false;
    lock.unlock();
    Collected c;
    try {
      c = collect_();
    } catch (const std::exception& e) {
      std::cerr << "gpu-triage serve: collection failed: " << for_terminal(e.what()) << "\n";
    }
    lock.lock();
    if (c.report) latest_ = c.report;
    if (c.abandoned_threads) {
      ++abandoned_;
      not_before_ = Clock::now() + options_.stuck_backoff;
    }
    ++generation_;
    in_progress_ = false;
    done_cv_.notify_all();
  }
}

}  // namespace gt
