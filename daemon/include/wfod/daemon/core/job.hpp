// One optimisation job as the worker runs it: the sweep of the stream's window and the live
// out-of-sample metrics of the previous winner (SPEC §8 online). Runs off the loop thread;
// touches only what it is given. The periodic checkpoint after it, which logs, is the
// daemon's (app/job_checkpoint.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "wfod/backend.hpp"
#include "wfod/bar.hpp"
#include "wfod/daemon/core/engine_slot.hpp"
#include "wfod/daemon/core/selection_step.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"
#include "wfod/daemon/publish/latency_stats.hpp"
#include "wfod/daemon/store/checkpoint_store.hpp"
#include "wfod/daemon/store/symbol_history.hpp"

namespace wfod::daemon {

struct JobInput {
  // The symbol's bars in memory up to request.window.end (immutable: the loop appends only
  // beyond the end it handed over).
  HistorySnapshot snap;
  std::string bar_log;                  // the symbol's bar log: bars memory no longer holds
  SweepRequest request;                 // history is filled in from snap
  std::optional<Combo> winner, before;  // the last two published winners
  size_t prev_end = 0;                  // history size the last publication covered
  // The (symbol, strategy)'s stream, kept across jobs (worker thread only); null: sweep.
  std::shared_ptr<EngineSlot> slot;
  // Robust selection ([strategy.selection] present): decides what is published.
  std::optional<selection::SelectionSpec> selection;
  std::optional<uint64_t> selected;  // the combo selected last (hysteresis's current one)
  // When the loop woke with the bars that made this run due, and when it queued the job.
  LatencyStats::Clock::time_point received, queued;
};

struct JobResult {
  size_t end = 0;  // history bars the run covered (its window's end)
  SweepResult sweep;
  std::optional<Metrics> live;
  std::string live_missing;  // why live_oos could not be computed (empty: it was, or no winner)
  bool bounded = false;      // the slot's stream answers without the history from the anchor
  size_t slot_bars = 0;      // bars the slot's stream has taken
  std::string error;
  // The backend itself failed (anything but std::invalid_argument, which is a request the
  // SPEC refuses): the daemon falls back to the CPU backend and runs the job again.
  bool backend_failed = false;
  double elapsed_ms = 0;
  double optimise_ms = 0;  // of which the stream run (the rest: selection, live_oos)
  // This job opened the stream (first run, or a backend change): its figures for the log,
  // and why it re-sweeps instead of advancing incrementally, if it does.
  bool stream_opened = false;
  StreamStats stream_stats;
  std::string stream_fallback;
  std::optional<SelectionOutcome> selection;  // with JobInput::selection
  // The combo to be published, as a tracker at the window's end (follow_winner): its last()
  // is the publication's position, and the loop follows it for signals (PROTOCOL §2, §2a).
  // Empty when there is nothing to publish, or with the reason in follow_missing.
  std::optional<PositionTracker> follow;
  std::string follow_missing;
  // received and queued from the input, started and finished here; the loop adds the rest.
  LatencyStats::Marks marks;
};

// `in.request.history` is filled in from `in.snap` when it starts at the anchor.
JobResult run_job(Backend& backend, JobInput& in);

// The combo the loop will publish from `out` (and then the next run's live_oos winner).
std::optional<Combo> next_live_winner(const JobResult& out);
// Before the result is posted: sets out.follow to `combo`'s tracker at the window's end
// (O(look-back) when the slot already tracks the combo, which it does for an unchanged
// winner), or out.follow_missing to why it could not.
void follow_winner(const Backend& backend, JobInput& in, JobResult& out, const Combo& combo);
// After the result is on its way: brings the slot's position tracker for `combo` up to the
// job's bars, so the next job's live_oos does not build it from the anchor (O(history) when
// the winner just changed) between a bar and its publication.
void warm_live_tracker(const JobInput& in, const Combo& combo);

// Where and how often the worker checkpoints a stream after its runs.
struct CheckpointPlan {
  const CheckpointStore* store = nullptr;
  uint32_t fingerprint = 0;
  std::chrono::seconds every{0};    // 0: only at a clean stop (the loop does that one)
  StorageAlarms* alarms = nullptr;  // a failed write raises "checkpoints", a later one clears it
};
}  // namespace wfod::daemon
