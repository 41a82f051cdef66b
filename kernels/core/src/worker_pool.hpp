// The engine's one way to run work on several threads: run_workers(). Every pool of the CPU
// backend and PBO goes through it, so a refused thread or an exception in a worker (e.g.
// std::bad_alloc) is handled once, here, instead of std::terminate.
#pragma once

#include <functional>

namespace wfod::detail {

// Runs work(i) exactly once for every i in [0, threads) and returns when all have returned:
// i = 0 on the calling thread, the others on new threads. A thread the operating system
// refuses is not an error: the indices it would have run run on the caller, after its own,
// and the shortfall handler (wfod/worker_threads.hpp) is told. work must therefore not wait
// for another index (share items through a counter, not a barrier). The first exception
// any work(i) throws is rethrown here once every thread has joined.
//
// With `poll`, the caller runs no index of its own unless threads are refused: every index
// gets a thread, and the caller calls poll() about every 100 ms until they finish (progress).
void run_workers(int threads, const std::function<void(int worker)>& work,
                 const std::function<void()>& poll = {});

}  // namespace wfod::detail
