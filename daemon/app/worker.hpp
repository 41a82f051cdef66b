// The optimisation worker (docs/architecture.md, "Threads"): one thread running sweeps off the
// event loop. Jobs are closures; each posts its own result back to the loop when done.
#pragma once

#include <atomic>
#include <chrono>
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

  // busy_poll: how long an idle worker keeps checking for a job before it sleeps on the
  // condition variable (0: sleeps at once). A job posted within that time starts without a
  // thread wake-up.
  void start(std::chrono::microseconds busy_poll = std::chrono::microseconds(0));
  // Queues a job. The scheduler keeps at most one job per stream in flight, so the queue is
  // bounded by the number of streams.
  void post(std::function<void()> job);
  // Abandons queued jobs, lets the running one finish, joins. Idempotent.
  void stop();
  // stop(), waiting at most `budget` for the running job: false when it is still running (a
  // stream opening over a long history, a huge sweep), which is then left to the process's
  // exit (the thread is detached: its caller must end the process without destroying what
  // the job uses). Shutdown must end within systemd's stop timeout whatever runs.
  bool stop_within(std::chrono::milliseconds budget);

 private:
  void run();

  bool take(std::function<void()>& job);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<size_t> queued_{0};  // jobs_.size(), readable without the lock while polling
  std::chrono::microseconds busy_poll_{0};
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  bool finished_ = false;  // run() has returned (under mutex_; cv_ is notified)
  std::thread thread_;
};

}  // namespace wfod::daemon
