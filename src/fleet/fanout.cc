// A fixed pool of threads pulling indices from one atomic counter: no
// queue, no per-job thread, and a slow job delays only the thread it is on.
#include "fleet/fanout.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gt {

void run_bounded(size_t n, size_t fanout, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) job(i);
  };
  const size_t threads = std::min(n, std::max<size_t>(1, fanout));
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
}

}  // namespace gt
