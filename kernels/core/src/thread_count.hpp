// Thread-count resolution and the small work-sharing loop shared by the CPU backend's
// parallel stages.
#pragma once

#include <algorithm>
#include <atomic>

#include "src/worker_pool.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::detail {
// 0 means all cores (wfod::available_cores: the affinity mask's).
using wfod::resolve_threads;

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
