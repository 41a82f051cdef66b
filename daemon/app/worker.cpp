// The optimisation worker thread: a plain job queue; the loop thread never waits on it
// except at shutdown. With a busy-poll time it checks the queue for that long after each job
// before sleeping (latency mode: no futex wake-up between a bar and its run).

#include "worker.hpp"

#include <utility>

namespace wfod::daemon {

void Worker::start(std::chrono::microseconds busy_poll) {
  busy_poll_ = busy_poll;
  thread_ = std::thread([this] { run(); });
}

void Worker::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
    queued_.store(jobs_.size(), std::memory_order_release);
  }
  cv_.notify_one();
}

void Worker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
    queued_.store(0, std::memory_order_release);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Worker::stop_within(std::chrono::milliseconds budget) {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  jobs_.clear();
  queued_.store(0, std::memory_order_release);
  cv_.notify_all();
  if (!thread_.joinable()) return true;
  if (!cv_.wait_for(lock, budget, [this] { return finished_; })) {
    lock.unlock();
    thread_.detach();
    return false;
  }
  lock.unlock();
  thread_.join();
  return true;
}

// Under the lock: the next job, false when stopping.
bool Worker::take(std::function<void()>& job) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
  if (stopping_) return false;
  job = std::move(jobs_.front());
  jobs_.pop_front();
  queued_.store(jobs_.size(), std::memory_order_release);
  return true;
}

void Worker::run() {
  for (;;) {
    if (busy_poll_.count() > 0) {
      const auto until = std::chrono::steady_clock::now() + busy_poll_;
      while (queued_.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < until) {
      }
    }
    std::function<void()> job;
    if (!take(job)) break;
    job();
  }
  std::lock_guard lock(mutex_);
  finished_ = true;
  cv_.notify_all();
}

}  // namespace wfod::daemon
