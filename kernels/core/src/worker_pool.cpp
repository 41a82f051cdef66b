// run_workers(): work handed to parked threads that live for the whole process (a thread is
// started only when no parked one is free, and a refusal degrades to fewer threads), worker
// exceptions carried back to the caller, and the shortfall handler.
//
// Why parked threads: a cpu stream advance makes two or more parallel calls per bar, and
// starting and joining a thread per index per call cost more than the work of a small grid
// (bench/RESULTS.md "Worker threads"). Calls may nest or overlap (a worker's job may call
// run_workers; the daemon's start-up restores run beside the engine's calls): each call takes
// free threads or starts new ones, so no call waits for another's threads.
#include "src/worker_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "wfod/worker_threads.hpp"

namespace wfod {
namespace {

std::atomic<ThreadShortfallHandler> shortfall_handler{nullptr};
std::atomic<size_t> threads_started{0};

// Threads parked between calls, each waiting for one task at a time.
class ParkedThreads {
 public:
  ParkedThreads() {
    // A forked child has none of the parent's threads: it starts with an empty pool (the
    // parent's state is left behind, never destroyed). The mutex is held across fork so the
    // child never inherits it locked by a thread that does not exist there.
    pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                   [] { instance().forget_after_fork(); });
  }

  ~ParkedThreads() {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      for (auto& s : slots_) s->wake.notify_all();
      threads.swap(threads_);
    }
    for (auto& t : threads) {
      // exit() called from a task runs this destructor on a parked thread: not itself.
      if (t.get_id() == std::this_thread::get_id())
        t.detach();
      else if (t.joinable())
        t.join();
    }
  }

  static ParkedThreads& instance() {
    static ParkedThreads pool;
    return pool;
  }

  // Runs `work` on a free parked thread, or on a new one, then `done` once that thread is
  // parked again (so a caller that waits for every `done` finds all its threads free for its
  // next call: repeated calls of one width start no thread). Throws what std::thread throws
  // when the system refuses a thread (std::system_error) or memory runs out.
  void run(std::function<void()> work, std::function<void()> done) {
    std::lock_guard lock(mu_);
    if (idle_.empty()) {
      slots_.reserve(slots_.size() + 1);
      threads_.reserve(threads_.size() + 1);
      auto slot = std::make_unique<Slot>();
      Slot* s = slot.get();
      s->work = std::move(work);
      s->done = std::move(done);
      threads_.emplace_back([this, s] { serve(s); });  // may throw: nothing changed yet
      slots_.push_back(std::move(slot));
      threads_started.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    Slot* s = idle_.back();
    idle_.pop_back();
    s->work = std::move(work);
    s->done = std::move(done);
    s->wake.notify_one();
  }

 private:
  struct Slot {
    std::function<void()> work, done;
    std::condition_variable wake;
  };

  void serve(Slot* s) {
    std::unique_lock lock(mu_);
    for (;;) {
      s->wake.wait(lock, [&] { return s->work || stopping_; });
      if (!s->work) return;  // stopping, nothing left to run
      std::function<void()> work = std::move(s->work), done = std::move(s->done);
      s->work = nullptr;
      s->done = nullptr;
      lock.unlock();
      work();  // never throws: run_workers' work keeps its exceptions
      work = nullptr;
      lock.lock();
      idle_.push_back(s);  // parked before the caller hears: its next call finds it free
      lock.unlock();
      done();  // may hand this slot new work meanwhile: the wait above sees it
      done = nullptr;
      lock.lock();
    }
  }

  void forget_after_fork() {
    // In the child: the threads do not exist; their objects must never be joined or freed.
    new std::vector<std::thread>(std::move(threads_));
    new std::vector<std::unique_ptr<Slot>>(std::move(slots_));
    threads_.clear();
    slots_.clear();
    idle_.clear();
    mu_.unlock();
  }

  std::mutex mu_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;
};

}  // namespace

void set_thread_shortfall_handler(ThreadShortfallHandler handler) { shortfall_handler = handler; }

size_t worker_threads_started() { return threads_started.load(std::memory_order_relaxed); }

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
  };
  // The last touch of this call's state: the caller returns (and its locals die) only once
  // it has seen `finished` reach `threads` under this mutex.
  auto finish = [&]() noexcept {
    std::lock_guard lock(finished_mu);
    ++finished;
    finished_cv.notify_all();
  };

  ParkedThreads& pool = ParkedThreads::instance();
  const int first_threaded = poll ? 0 : 1;
  int refused_from = threads;  // indices from here on had no thread
  char reason[160] = "";       // no allocation: memory may be what ran out
  for (int i = first_threaded; i < threads; ++i) {
    try {
      pool.run([&guarded, i] { guarded(i); }, finish);
    } catch (const std::exception& e) {  // std::system_error (EAGAIN), std::bad_alloc
      refused_from = i;
      std::snprintf(reason, sizeof reason, "%s", e.what());
      break;
    }
  }
  if (refused_from < threads) {
    if (auto handler = shortfall_handler.load()) {
      try {
        handler(threads, refused_from - first_threaded + (poll ? 0 : 1), reason);
      } catch (...) {
        keep_first_error();  // nothing may leave while workers run this call's work
      }
    }
  }

  if (!poll) {
    guarded(0);
    finish();
  }
  for (int i = refused_from; i < threads; ++i) {
    guarded(i);
    finish();
  }
  // Wait until every index has finished; with a poll, call it about every 100 ms meanwhile.
  std::unique_lock lock(finished_mu);
  for (bool polling = static_cast<bool>(poll); polling;) {
    lock.unlock();
    try {
      poll();
    } catch (...) {
      keep_first_error();
      polling = false;
    }
    lock.lock();
    if (polling)
      polling = !finished_cv.wait_for(lock, std::chrono::milliseconds(100),
                                      [&] { return finished == threads; });
  }
  finished_cv.wait(lock, [&] { return finished == threads; });
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  // The affinity mask, not the machine: a service pinned to 4 of 64 cores (CPUAffinity=,
  // taskset, a cpuset) runs 4 threads for "all cores", not 64 that time-share 4.
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int in_mask = CPU_COUNT(&set);
    if (in_mask > 0) return in_mask;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int resolve_threads(int requested) { return requested > 0 ? requested : available_cores(); }

}  // namespace wfod
