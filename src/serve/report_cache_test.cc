#include "serve/report_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace gt {
namespace report_cache_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// A collection that takes `delay` and counts itself and its overlaps.
struct FakeCollector {
  std::chrono::milliseconds delay{0};
  bool abandon = false;
  std::atomic<int> calls{0};
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};

  ReportCache::Collected operator()() {
    int now = ++running;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay);
    auto r = std::make_shared<CachedReport>();
    r->metrics = "m " + std::to_string(++calls) + "\n";
    r->finished = Clock::now();
    --running;
    return {r, abandon};
  }
};

ReportCache::CollectFn fn(FakeCollector& c) {
  return [&c] { return c(); };
}

TEST(ReportCache, AFreshReportIsServedWithoutCollectingAgain) {
  FakeCollector c;
  ReportCache cache(fn(c), {10s, 60s, 16});
  auto a = cache.get(2s);
  auto b = cache.get(2s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a, b);
  EXPECT_EQ(c.calls, 1);
}

TEST(ReportCache, AnOldReportStartsANewCollection) {
  FakeCollector c;
  ReportCache cache(fn(c), {0ms, 60s, 16});
  auto a = cache.get(2s);
  auto b = cache.get(2s);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->metrics, b->metrics);
  EXPECT_EQ(c.calls, 2);
}

TEST(ReportCache, NeverTwoCollectionsAtOnce) {
  FakeCollector c;
  c.delay = 100ms;
  ReportCache cache(fn(c), {0ms, 60s, 16});
  std::vector<std::thread> scrapes;
  for (int i = 0; i < 16; ++i)
    scrapes.emplace_back([&] {
      for (int j = 0; j < 5; ++j) cache.get(30ms);
    });
  for (auto& t : scrapes) t.join();
  EXPECT_EQ(c.max_running, 1);
  EXPECT_GE(c.calls, 1);
}

TEST(ReportCache, AScrapeWaitsNoLongerThanItsDeadlineAndGetsTheLastReport) {
  FakeCollector c;
  ReportCache cache(fn(c), {0ms, 60s, 16});
  auto first = cache.get(2s);
  ASSERT_TRUE(first);
  c.delay = 800ms;
  auto t0 = Clock::now();
  auto stale = cache.get(100ms);
  auto waited = Clock::now() - t0;
  EXPECT_LT(waited, 400ms);
  EXPECT_EQ(stale, first);
  ServeMetrics m = cache.stats(Clock::now());
  EXPECT_TRUE(m.collection_in_progress);
  ASSERT_TRUE(m.report_age_s);
  EXPECT_GE(*m.report_age_s, 0.09);
}

TEST(ReportCache, NoReportBeforeTheFirstCollectionEnds) {
  FakeCollector c;
  c.delay = 500ms;
  ReportCache cache(fn(c), {10s, 60s, 16});
  cache.refresh();
  EXPECT_FALSE(cache.get(10ms));
  EXPECT_FALSE(cache.stats(Clock::now()).report_age_s);
}

TEST(ReportCache, StuckCollectionsBackOffThenHalt) {
  FakeCollector c;
  c.abandon = true;
  ReportCache cache(fn(c), {0ms, 0ms, 2});
  cache.get(2s);
  cache.get(2s);
  cache.get(2s);  // halted: the last report, no new collection
  EXPECT_EQ(c.calls, 2);
  ServeMetrics m = cache.stats(Clock::now());
  EXPECT_TRUE(m.collector_halted);
  EXPECT_EQ(m.collections_abandoned, 2u);

  FakeCollector d;
  d.abandon = true;
  ReportCache backoff(fn(d), {0ms, 60s, 16});
  backoff.get(2s);
  EXPECT_TRUE(backoff.get(2s));
  EXPECT_EQ(d.calls, 1) << "no new collection within the backoff";
}

}  // namespace report_cache_test
}  // namespace gt
