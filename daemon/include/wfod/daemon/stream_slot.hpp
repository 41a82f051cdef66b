// One (symbol, strategy)'s optimisation state kept across runs: the backend's Stream
// (Backend::open_stream), opened on the history from the anchor and advanced by the bars
// that arrived since, so a run costs the new bars instead of the whole window (issue 5),
// and the CUDA backend keeps the window on the device. Used by the worker thread only.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::daemon {

class StreamSlot {
 public:
  // The window of `request` (history from the anchor; the window ends at its last bar),
  // through the stream: opened on first use or when `backend` changed, else advanced by
  // the history's new bars. When the backend cannot hold the stream (its memory plan),
  // falls back to the re-sweeping default stream and says why in fallback_reason().
  SweepResult run(Backend& backend, const SweepRequest& request);

  // Set after an open: the stream's figures, and whether this run opened it.
  const StreamStats& stats() const { return stats_; }
  bool opened_now() const { return opened_now_; }
  const std::string& fallback_reason() const { return fallback_reason_; }

  // p_t over `h` of a combo of this stream's grid (live_oos): the last few combos asked for
  // keep incremental trackers, so a publication costs the new bars, not the history.
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec, const Combo& c);

 private:
  const Backend* owner_ = nullptr;
  std::unique_ptr<Stream> stream_;
  size_t bars_ = 0;  // history bars the stream holds
  StreamStats stats_;
  bool opened_now_ = false;
  std::string fallback_reason_;
  std::deque<PositionTracker> trackers_;  // most recently used first
};

}  // namespace wfod::daemon
