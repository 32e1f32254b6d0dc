// A pool of threads over an index range: what the data scan runs its file
// checks on, and what its benchmark's floor runs on (bench/data_floor.cc),
// so both use the same number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace gt {

/// The threads a pool uses when asked for 0: the number of cores, at most 16.
inline unsigned default_pool_threads() {
  return std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
}

/// Runs `body(i, buffer)` for each i in [0, count) on `threads` threads (0:
/// default_pool_threads(), never more than count), the calling thread one
/// of them; each thread has its own reusable read buffer. Returns when all
/// are done.
template <typename Body>
void on_pool(size_t count, unsigned threads, Body&& body) {
  unsigned n = threads ? threads : default_pool_threads();
  n = std::max(1u, static_cast<unsigned>(std::min<size_t>(n, count)));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::vector<uint8_t> buffer;
    for (size_t i = next++; i < count; i = next++) body(i, buffer);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace gt
