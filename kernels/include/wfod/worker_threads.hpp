// How wfod's engine runs work on several threads (run_workers: work handed to worker threads
// that stay parked between calls for the life of the process: the CPU backend's parallel
// stages, PBO's splits, the daemon's start-up stream restores; docs/architecture.md lists every
// thread), and what happens when the operating system refuses a thread (ulimit -u, address
// space). The work then runs on the threads that did start, the caller's included, with the
// same results; the handler set here is told, so an application can warn. Without a handler
// the shortfall is silent.
#pragma once

#include <cstddef>
#include <functional>

namespace wfod {

// Runs work(i) exactly once for every i in [0, threads) and returns when all have returned:
// i = 0 on the calling thread, the others on parked worker threads (a new one is started only
// when none is free, so calls may nest or overlap). A thread the operating system
// refuses is not an error: the indices it would have run run on the caller, after its own,
// and the shortfall handler is told. work must therefore not wait for another index (share
// items through a counter, not a barrier). The first exception any work(i) throws is
// rethrown here once every index has finished.
//
// With `poll`, the caller runs no index of its own unless threads are refused: every index
// gets a thread, and the caller calls poll() about every 100 ms until they finish (progress).
void run_workers(int threads, const std::function<void(int worker)>& work,
                 const std::function<void()>& poll = {});

// wanted: threads the pool asked for, the caller's included; started: those it runs on;
// reason: the refusal's text. Called on the thread that asked for the pool.
using ThreadShortfallHandler = void (*)(int wanted, int started, const char* reason);
void set_thread_shortfall_handler(ThreadShortfallHandler handler);

// The cores this process may run on: the CPUs of its affinity mask (taskset, systemd's
// CPUAffinity=, a container's cpuset), else std::thread::hardware_concurrency(); at least 1.
// Every "threads = 0" (all cores) in wfod means this many.
int available_cores();
// A thread count as the engine's calls and the tools take it: requested when > 0, else
// available_cores().
int resolve_threads(int requested);

// Worker threads started so far in this process (parked ones are reused, not counted again):
// for tests and benchmarks of thread churn.
size_t worker_threads_started();

}  // namespace wfod
