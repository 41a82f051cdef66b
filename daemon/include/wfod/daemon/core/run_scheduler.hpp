// When a (symbol, strategy) stream re-optimises (docs/architecture.md, "Threads"): every `every`
// accepted bars once the history is long enough, at most one job in flight, and a due run
// that finds one in flight coalesced into a single follow-up run (counted, never queued).
#pragma once

#include <cstddef>
#include <cstdint>

namespace wfod::daemon {

class RunScheduler {
 public:
  // min_bars: the history a sweep needs (window + warmup + 1, SPEC §3).
  RunScheduler(size_t every, size_t min_bars)
      : every_(every == 0 ? 1 : every), min_bars_(min_bars) {}

  // `new_bars` bars were accepted; the history now holds `history_size`. True: start a job
  // now (the scheduler marks it running). The first run starts as soon as the history is
  // long enough, later ones every `every` bars.
  bool on_bars(size_t history_size, size_t new_bars);
  // The running job finished (published or failed). True: start the coalesced follow-up now.
  bool on_job_done();
  // After a restart: the stream last ran `bars_since` accepted bars ago (its persisted live
  // state), so the next run comes due exactly where an uninterrupted daemon's would.
  void resume(size_t bars_since) {
    ran_ = true;
    since_last_ = bars_since;
  }

  bool running() const { return running_; }
  bool pending() const { return pending_; }
  uint64_t coalesced() const { return coalesced_; }
  uint64_t started() const { return started_; }
  size_t min_bars() const { return min_bars_; }
  // Accepted bars since the last due run (or since resume's publication).
  size_t bars_since_run() const { return since_last_; }
  // Once a run was due: accepted bars until the next one is (0: due now). Before the first
  // run the history size decides instead (min_bars).
  size_t bars_until_due() const { return since_last_ >= every_ ? 0 : every_ - since_last_; }

 private:
  bool start();

  size_t every_;
  size_t min_bars_;
  size_t since_last_ = 0;  // accepted bars since the last due run
  bool ran_ = false;       // a run was ever due
  bool running_ = false;
  bool pending_ = false;  // a run came due while one was in flight
  uint64_t coalesced_ = 0;
  uint64_t started_ = 0;
};

}  // namespace wfod::daemon
