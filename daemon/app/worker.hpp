// The optimisation worker (ARCHITECTURE.md "Threads"): one thread running sweeps off the
// event loop. Jobs are closures; each posts its own result back to the loop when done.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace wfod::daemon {

class Worker {
 public:
  Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { stop(); }

  void start();
  // Queues a job. The scheduler keeps at most one job per stream in flight, so the queue is
  // bounded by the number of streams.
  void post(std::function<void()> job);
  // Abandons queued jobs, lets the running one finish, joins. Idempotent.
  void stop();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace wfod::daemon
