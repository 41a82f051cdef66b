// One (symbol, strategy)'s optimisation state kept across runs: the backend's Stream
// (Backend::open_stream), opened on the history from the anchor and advanced by the bars
// that arrived since, so a run costs the new bars instead of the whole window, and the CUDA
// backend keeps the window on the device; and position trackers of the last combos asked
// for (live_oos), extended with the same bars. Used by the worker thread only (and, while
// the worker is not running, by the start-up opener threads and by the loop thread for the
// checkpoints at shutdown).
//
// A bounded stream (Stream::bounded: the cpu backend) answers positions and robust
// selection from its own state, so the daemon keeps only a tail of the history in memory;
// when such a stream must be opened later (a reload, a backend fallback), the bars memory
// no longer holds are read from the bar log.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/daemon/store/symbol_history.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/selection/window_source.hpp"

namespace wfod::daemon {

// The spec a stream for `request`'s strategy and window is opened with.
StreamSpec stream_spec_of(const SweepRequest& request);

class EngineSlot {
 public:
  // The window ending at snap.end, through the stream: opened on first use or when
  // `backend` changed (bars before snap.from() read from `bar_log`), else advanced by the
  // bars since the last run (those older than snap.from() read from `bar_log` too). When the
  // backend cannot hold the stream (its memory plan), falls back to the re-sweeping default stream
  // and says why in fallback_reason(). `request.history` is ignored; its window must end at
  // snap.end.
  SweepResult run(Backend& backend, const SweepRequest& request, const HistorySnapshot& snap,
                  const std::string& bar_log);

  // Opens the stream on a whole history from the anchor (start-up), without running it.
  void open(Backend& backend, const StreamSpec& spec, const HistoryView& from_anchor);
  // The same when memory holds bars [snap.from(), snap.end): the older ones are read from
  // `bar_log`, a batch at a time.
  void open_from(Backend& backend, const StreamSpec& spec, const HistorySnapshot& snap,
                 const std::string& bar_log);

  // Resumes from a checkpoint the stream wrote after `bars` bars (Stream::checkpoint);
  // std::invalid_argument when the backend refuses it (the caller then opens and replays).
  void restore(Backend& backend, const StreamSpec& spec, std::span<const uint8_t> blob,
               size_t bars);
  // The stream's exact state, for a checkpoint; nullopt when it writes none (not bounded).
  std::optional<std::vector<uint8_t>> checkpoint() const;
  // When the last checkpoint was written (the worker paces them).
  std::chrono::steady_clock::time_point last_checkpoint = std::chrono::steady_clock::now();

  bool is_open() const { return stream_ != nullptr; }
  // The open stream answers without the history from the anchor (see above), robust
  // selection included (window_source(): a cuda stream makes the blocks on the device).
  bool bounded() const { return stream_ && stream_->bounded(); }
  size_t bars() const { return bars_; }  // bars the stream has taken
  const Backend* owner() const { return owner_; }

  // Set after an open: the stream's figures, and whether this run opened it.
  const StreamStats& stats() const { return stats_; }
  bool opened_now() const { return opened_now_; }
  const std::string& fallback_reason() const { return fallback_reason_; }

  // Robust selection's view of the window the last run optimised: the stream's own state
  // when it is bounded, else nullopt (the caller uses the backend on the whole history).
  std::unique_ptr<selection::WindowSource> window_source() const;

  // p_t for t in [first, bars()) of a combo of this stream's grid (live_oos). The last few
  // combos asked for (and warmed) keep trackers extended by every run, so this costs the new
  // bars. `snap` holds the bars of this run (from the anchor when the stream is not bounded).
  // Throws std::out_of_range when `first` is older than anything kept.
  std::vector<int8_t> positions(const Combo& c, size_t first, const HistorySnapshot& snap);
  // Starts (or refreshes) the tracker of `c` at the newest bar, so the next run's live_oos
  // for it costs only the new bars.
  void warm(const Combo& c, const HistorySnapshot& snap);
  // Positions each tracker keeps (>= the bars between two publications plus two).
  void set_tracker_keep(size_t bars) { tracker_keep_ = bars; }
  // A tracker of `c` at the newest bar, independent of the slot, holding its last `keep`
  // positions: what the loop thread follows for signals (PROTOCOL §2a). Forked from the
  // combo's tracker when the slot keeps one (O(look-back)), else seeded from a bounded
  // stream (O(chunk)), else the combo is replayed from the anchor once and its tracker kept
  // for live_oos too. Throws like positions().
  PositionTracker follow(const Combo& c, const HistorySnapshot& snap, size_t keep);

 private:
  PositionTracker& tracker_for(const Combo& c, const HistorySnapshot& snap);
  // Advances the stream (and its trackers) through bars [bars(), end) read from the bar log.
  void catch_up_from_log(size_t end, const std::string& bar_log);

  const Backend* owner_ = nullptr;
  std::unique_ptr<Stream> stream_;
  StreamSpec spec_;
  size_t bars_ = 0;  // history bars the stream holds
  StreamStats stats_;
  bool opened_now_ = false;
  std::string fallback_reason_;
  std::deque<PositionTracker> trackers_;  // most recently used first
  size_t tracker_keep_ = 1 << 16;
};

}  // namespace wfod::daemon
