// Thread-count resolution and the small work-sharing loop shared by the CPU backend's
// parallel stages.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>

#include "src/worker_pool.hpp"

namespace wfod::detail {
// 0 means all cores.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency()) > 0
             ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
             : 1;
}

// Runs job(worker, item) for items [0, count) on `threads` threads (the caller is one).
template <typename Job>
void parallel_for(size_t count, int threads, const Job& job) {
  std::atomic<size_t> next{0};
  auto work = [&](int worker) {
    for (size_t i; (i = next.fetch_add(1)) < count;) job(worker, i);
  };
  const int n = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), count));
  // Through run_workers: a refused thread's share runs here, an exception in a
  // worker comes back once all have joined.
  wfod::detail::run_workers(n, work);
}

}  // namespace wfod::detail
