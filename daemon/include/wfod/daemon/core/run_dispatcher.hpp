// Scheduling and the worker hand-off (issue 44 item 1): when a stream re-optimises and what
// becomes of its result. A committed batch makes a stream's run due every `every` bars once
// its window fills (RunScheduler); a due run that finds one in flight is coalesced into one
// follow-up (counted, logged). A run holds its window's last bar's signal, hands the worker
// a snapshot of the history and the backend it runs on (JobHandOff), and its result comes
// back on the loop: one of a stream a reload replaced or removed is dropped; a device
// backend's failure (Backend::runs_on_device) moves the daemon to the cpu backend, keeping
// the failed one alive for the jobs already queued on it, and the same run goes again on
// the cpu; a failure of any other backend is logged and the stream waits for its next run;
// a result whose bars are not yet synced is published by the next sync pass
// (BarKeeper::after_next_sync) while the follow-up run starts; otherwise it is published
// now, its signals released, and the follow-up started. After stop() results are dropped.
//
// Loop thread only. Its seams: the hand-off to the worker, the publication, the events (log
// lines), the cpu backend's factory and the clock: tests/unit/daemon/core/run_dispatcher_test.cpp
// runs every rule with fakes and no thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/job.hpp"
#include "wfod/daemon/core/signal_gate.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"
#include "wfod/daemon/core/streams.hpp"
#include "wfod/daemon/publish/duration_histogram.hpp"
#include "wfod/daemon/store/checkpoint_store.hpp"

namespace wfod::daemon {

// One job for the worker, and where its result goes back to.
struct JobTicket {
  PublicationKey key;
  uint64_t generation = 0;  // of the stream when the job started
  JobInput input;
  Backend* backend = nullptr;  // kept alive after a fallback: the dispatcher retires it
  CheckpointPlan plan;
};

// The worker: runs a ticket off the loop and gives its result back on the loop through
// RunDispatcher::on_result (the daemon: Worker and asio::post).
class JobHandOff {
 public:
  virtual ~JobHandOff() = default;
  virtual void post(JobTicket ticket) = 0;
};

// A result's publication (the daemon: its payload through the Publisher, then the stream's
// winners, signals and live state).
class RunPublication {
 public:
  virtual ~RunPublication() = default;
  virtual void publish(const PublicationKey& key, SymbolStrategy& stream,
                       const HistorySnapshot& snap, JobResult& result) = 0;
};

// What the dispatcher reports; the daemon writes each as its log line.
class RunEvents {
 public:
  virtual ~RunEvents() = default;
  virtual void started(const PublicationKey& key, size_t bars, size_t window) = 0;
  virtual void coalesced(const PublicationKey& key, uint64_t so_far) = 0;
  // A result of a stream a reload replaced or removed.
  virtual void dropped(const PublicationKey& key) = 0;
  // live_oos published null (once per stream: it recurs while the cause lasts).
  virtual void live_missing(const PublicationKey& key, std::string_view why) = 0;
  virtual void stream_opened(const PublicationKey& key, const JobResult& result) = 0;
  virtual void fell_back(std::string_view from, std::string_view to, std::string_view error) = 0;
  virtual void fallback_failed(std::string_view from, std::string_view error) = 0;
  virtual void failed(const PublicationKey& key, std::string_view error) = 0;
  // No combo passed the constraints: nothing published.
  virtual void empty(const PublicationKey& key, size_t window, uint64_t evaluated,
                     double elapsed_ms) = 0;
  // At start, a stream whose first run is not due: still short of its window, or resumed
  // part way to its next run.
  virtual void waiting_for_bars(const PublicationKey& key, const SymbolStrategy& stream,
                                size_t history) = 0;
  virtual void next_run_after(const PublicationKey& key, const SymbolStrategy& stream) = 0;
};

class RunDispatcher {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;
  using MakeCpu = std::function<std::unique_ptr<Backend>()>;

  // Every reference must outlive the dispatcher; `daemon` is read at each use (a reload
  // changes checkpoint_every_s). `make_cpu`: make_backend("cpu") when empty; `now`: the
  // steady clock when empty.
  RunDispatcher(StreamMap& streams, BarKeeper& bars, SignalGate& signals,
                RunPublication& publication, JobHandOff& hand_off, RunEvents& events,
                const config::DaemonConfig& daemon, StorageAlarms& alarms, MakeCpu make_cpu = {},
                Now now = {});

  // At start-up: the backend chosen, and where the worker checkpoints.
  void set_backend(std::unique_ptr<Backend> backend);
  void set_checkpoints(const CheckpointStore* checkpoints) { checkpoints_ = checkpoints; }

  // `bars` new bars of `sym` are committed (the loop woke with them at `due_at`): each of its
  // streams starts a run if one is due (or coalesces it), then sends the signals that may go.
  void on_bars(SymbolState& sym, size_t bars, Clock::time_point due_at);
  // The first run of each stream whose persisted history is long enough (start-up).
  void start_first_runs();
  // A stream a reload added or replaced: its first run if the history is long enough.
  void start_if_due(const PublicationKey& key);
  // A run of `key` over the history as it is now.
  void start(const PublicationKey& key);
  // A job's result, on the loop.
  void on_result(const PublicationKey& key, uint64_t generation, HistorySnapshot snap,
                 JobResult result);
  // The stop began: results from now on are dropped.
  void stop() { stopping_ = true; }
  // A stream a reload removes or replaces: its coalesced runs still count.
  void retire(const SymbolStrategy& stream) { retired_coalesced_ += stream.sched.coalesced(); }

  Backend& backend() { return *backend_; }
  const std::string& backend_name() const { return backend_name_; }
  uint64_t fallbacks() const { return fallbacks_; }
  const std::string& backend_error() const { return backend_error_; }
  // Runs coalesced since start, removed streams' included (health `coalesced`).
  uint64_t coalesced() const;
  // How long runs take, by strategy (wfod_optimisation_duration_seconds).
  const std::map<std::string, DurationHistogram, std::less<>>& durations() const {
    return durations_;
  }

 private:
  // Replaces a failing backend by the cpu one; false when that could not be made (the
  // failing one stays).
  bool fall_back_to_cpu(const std::string& error);
  Clock::time_point now() const { return now_ ? now_() : Clock::now(); }

  StreamMap& streams_;
  BarKeeper& bars_;
  SignalGate& signals_;
  RunPublication& publication_;
  JobHandOff& hand_off_;
  RunEvents& events_;
  const config::DaemonConfig& daemon_;
  StorageAlarms& alarms_;
  MakeCpu make_cpu_;
  Now now_;
  const CheckpointStore* checkpoints_ = nullptr;
  std::unique_ptr<Backend> backend_;
  std::string backend_name_;
  std::vector<std::unique_ptr<Backend>> retired_;  // replaced by a fallback
  uint64_t fallbacks_ = 0;
  std::string backend_error_;
  uint64_t retired_coalesced_ = 0;  // of streams a reload removed
  std::map<std::string, DurationHistogram, std::less<>> durations_;
  bool stopping_ = false;
};

}  // namespace wfod::daemon
