// run_workers(): threads started defensively (a refusal degrades to fewer threads), worker
// exceptions carried back to the caller, and the shortfall handler.
#include "src/worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "wfod/worker_threads.hpp"

namespace wfod {
namespace {
std::atomic<ThreadShortfallHandler> shortfall_handler{nullptr};
}  // namespace

void set_thread_shortfall_handler(ThreadShortfallHandler handler) { shortfall_handler = handler; }

void run_workers(int threads, const std::function<void(int)>& work,
                 const std::function<void()>& poll) {
  threads = std::max(threads, 1);
  std::mutex error_mu;
  std::exception_ptr error;
  std::mutex finished_mu;
  std::condition_variable finished_cv;
  int finished = 0;
  // A worker never lets an exception out of its thread (that would be std::terminate).
  auto keep_first_error = [&] {
    std::lock_guard lock(error_mu);
    if (!error) error = std::current_exception();
  };
  auto guarded = [&](int index) noexcept {
    try {
      work(index);
    } catch (...) {
      keep_first_error();
    }
    std::lock_guard lock(finished_mu);
    ++finished;
    finished_cv.notify_all();
  };

  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));  // emplace_back below never reallocates
  // Whatever leaves this function, started threads are joined first (a joinable
  // std::thread's destructor is std::terminate).
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } join_all{pool};
  const int first_threaded = poll ? 0 : 1;
  int refused_from = threads;  // indices from here on had no thread
  char reason[160] = "";       // no allocation: memory may be what ran out
  for (int i = first_threaded; i < threads; ++i) {
    try {
      pool.emplace_back(guarded, i);
    } catch (const std::exception& e) {  // std::system_error (EAGAIN), std::bad_alloc
      refused_from = i;
      std::snprintf(reason, sizeof reason, "%s", e.what());
      break;
    }
  }
  if (refused_from < threads) {
    if (auto handler = shortfall_handler.load()) {
      try {
        handler(threads, static_cast<int>(pool.size()) + (poll ? 0 : 1), reason);
      } catch (...) {
        keep_first_error();  // nothing may leave while threads are joinable
      }
    }
  }

  if (!poll) guarded(0);
  for (int i = refused_from; i < threads; ++i) guarded(i);
  // Poll until every index has finished, waking early when the last one does.
  for (bool polling = static_cast<bool>(poll); polling;) {
    try {
      poll();
    } catch (...) {
      keep_first_error();
      break;  // the threads are joined below either way
    }
    std::unique_lock lock(finished_mu);
    polling = !finished_cv.wait_for(lock, std::chrono::milliseconds(100),
                                    [&] { return finished == threads; });
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace wfod
