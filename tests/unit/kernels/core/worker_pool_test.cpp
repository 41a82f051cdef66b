// The engine's thread pool (kernels/core/src/worker_pool.hpp): every index runs once; an
// exception in a worker reaches the caller after every index finished (never
// std::terminate); parked threads are reused; a thread the system refuses leaves its index to the
// caller, and the shortfall handler hears of it. "0 = all cores" is the affinity mask's count.
#include "src/worker_pool.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "support/sanitizers.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod {
namespace {

TEST(WorkerPool, EveryIndexRunsOnce) {
  for (int threads : {1, 2, 7}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(threads));
    detail::run_workers(threads, [&](int i) { ++runs[static_cast<size_t>(i)]; });
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
  // With a poll: every index on its own thread, the caller polling until they finish.
  std::atomic<int> sum{0}, polls{0};
  detail::run_workers(
      3, [&](int i) { sum += i + 1; }, [&] { ++polls; });
  EXPECT_EQ(sum.load(), 6);
  EXPECT_GE(polls.load(), 1);
}

TEST(WorkerPool, AWorkersExceptionReachesTheCallerAfterTheOthersFinish) {
  std::atomic<int> finished{0};
  try {
    detail::run_workers(4, [&](int i) {
      if (i == 2) throw std::bad_alloc();
      ++finished;
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::bad_alloc&) {
    EXPECT_EQ(finished.load(), 3);
  }
  // From a poll too.
  EXPECT_THROW(detail::run_workers(
                   2, [](int) {}, [] { throw std::runtime_error("progress failed"); }),
               std::runtime_error);
}

// Threads are parked between calls: repeated calls of the same width start no new thread
// (a cpu stream advance makes two or more calls per bar), and nested calls still finish.
TEST(WorkerPool, RepeatedCallsReuseParkedThreads) {
  std::atomic<int> runs{0};
  const size_t before = worker_threads_started();
  for (int call = 0; call < 200; ++call) detail::run_workers(4, [&](int) { ++runs; });
  // Three indices at a time go to threads: never more than three were needed at once.
  const size_t warm = worker_threads_started();
  EXPECT_LE(warm - before, 3u);
  for (int call = 0; call < 200; ++call) detail::run_workers(4, [&](int) { ++runs; });
  EXPECT_EQ(runs.load(), 400 * 4);
  EXPECT_EQ(worker_threads_started(), warm) << "a warm pool starts no thread";
  // A worker's job may call run_workers itself: the inner call takes free threads or starts
  // new ones, never waiting for the outer call's.
  std::atomic<int> inner{0};
  detail::run_workers(3, [&](int) { detail::run_workers(3, [&](int) { ++inner; }); });
  EXPECT_EQ(inner.load(), 9);
}

int shortfall_wanted = 0, shortfall_started = -1;
void record_shortfall(int wanted, int started, const char*) {
  shortfall_wanted = wanted;
  shortfall_started = started;
}

// In a child process whose address space has no room for a thread stack: every thread is
// refused, the caller runs every index, and the handler is told 1 of 6 started. Exits 0
// when all of that holds.
[[noreturn]] void run_with_threads_refused() {
  set_thread_shortfall_handler(&record_shortfall);
  std::vector<int> runs(6, 0);
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  if (pages == 0) std::exit(3);
  // Room for small allocations, none for an 8 MiB thread stack.
  const rlim_t limit = static_cast<rlim_t>(pages) * 4096 + (2 << 20);
  const rlimit as{limit, limit};
  if (setrlimit(RLIMIT_AS, &as) != 0) std::exit(4);
  detail::run_workers(6, [&](int i) { ++runs[static_cast<size_t>(i)]; });
  for (int r : runs)
    if (r != 1) std::exit(5);
  std::exit(shortfall_wanted == 6 && shortfall_started == 1 ? 0 : 6);
}

TEST(WorkerPool, RefusedThreadsLeaveTheirWorkToTheCaller) {
#if WFOD_TEST_UNDER_ASAN
  // The refusal is made with an address-space limit, and AddressSanitizer's shadow memory
  // cannot be mapped under one: the release build runs this test.
  GTEST_SKIP() << "address-space limits (RLIMIT_AS) do not apply to an AddressSanitizer build";
#endif
  // A fresh process: a forked one could reuse the stacks of threads earlier tests ended
  // (glibc caches them), and those need no new address space.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_with_threads_refused(), ::testing::ExitedWithCode(0), "");
}

// "All cores" follows the affinity mask (taskset, CPUAffinity=), not the machine: pinned to
// one CPU, 0 threads means 1.
TEST(WorkerPool, AllCoresAreTheAffinityMasks) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(available_cores(), CPU_COUNT(&before));
  EXPECT_EQ(resolve_threads(0), CPU_COUNT(&before));
  EXPECT_EQ(resolve_threads(3), 3);
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int pinned = available_cores();
  const int resolved = resolve_threads(0);
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(pinned, 1);
  EXPECT_EQ(resolved, 1);
}

}  // namespace
}  // namespace wfod
