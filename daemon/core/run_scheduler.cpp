// Per-stream scheduling and coalescing (docs/architecture.md, "Threads"): a slow sweep never
// builds a queue; due runs during it collapse into one run on the latest data.

#include "wfod/daemon/core/run_scheduler.hpp"

namespace wfod::daemon {

bool RunScheduler::start() {
  since_last_ = 0;
  ran_ = true;
  if (running_) {
    // Coalesce: the follow-up will see every bar that arrived meanwhile.
    pending_ = true;
    ++coalesced_;
    return false;
  }
  running_ = true;
  ++started_;
  return true;
}

bool RunScheduler::on_bars(size_t history_size, size_t new_bars) {
  since_last_ += new_bars;
  if (history_size < min_bars_) return false;
  if (ran_ && since_last_ < every_) return false;
  return start();
}

bool RunScheduler::on_job_done() {
  running_ = false;
  if (!pending_) return false;
  pending_ = false;
  running_ = true;
  ++started_;
  return true;
}

}  // namespace wfod::daemon
