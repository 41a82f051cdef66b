// Per-bar signals of one (symbol, strategy) (PROTOCOL §2a): the published combo's position
// tracker, kept on the loop thread and extended by the bars accepted since (O(new bars) per
// batch, none of the optimiser's work), and the runs whose publication is not decided yet,
// which hold back the signals from their window's last bar on, so that a publication at bar
// t goes out before bar t's signal, which then already follows the new combo.
//
// How the daemon drives it (docs/protocol.md "Signals"): hold() when a run starts, release()
// once its result is published or dropped; before a publication, the signals of the bars
// before its window's last bar go out with the old combo, then adopt() the new combo's
// tracker (forked by the worker at the window's end); after each batch, sync pass and
// result, take() the bars that are persisted and not held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::daemon {

// Positions a follower's tracker keeps: it is read only at the bars about to be signalled.
inline constexpr size_t kSignalTrackerKeep = 64;

struct Signal {
  size_t bar = 0;  // index from the anchor
  int64_t ts_ns = 0;
  int8_t position = 0;  // p_t of the followed combo (SPEC §2)
};

class SignalFollower {
 public:
  // A run over bars [0, end) started: signals of bars >= end - 1 wait for its publication.
  void hold(size_t end);
  // That run's publication was sent, withheld or dropped (an end not held: nothing).
  void release(size_t end);

  // The first bar this follower may signal: the first one accepted after the daemon (or a
  // reload that replaced the stream) started. A bar is signalled once, by one process.
  void start_at(size_t bar) { next_ = bar; }
  // From now on follow `tracker`'s combo, chosen by publication `params_seq`; the next
  // signal is bar max(from, next()). The tracker holds p_t of that bar (>= first_kept()),
  // or is behind it and take() extends it. std::invalid_argument (and nothing changes)
  // when it cannot give that bar.
  void adopt(PositionTracker tracker, uint64_t params_seq, size_t from);
  // No published combo to follow (its tracker could not be built): no signals until the
  // next adopt().
  void stop() { tracker_.reset(); }

  bool following() const { return tracker_.has_value(); }
  size_t next() const { return next_; }  // the next bar to signal
  // The oldest bar take() reads: the tracker may be behind next() (a restart).
  size_t needs_from() const;
  // The end of the bars that may be signalled now, when bars [0, durable) are persisted:
  // none at or after a held run's last bar. >= next() while following.
  size_t ready_end(size_t durable) const;
  uint64_t params_seq() const { return params_seq_; }
  uint64_t combo_id() const { return tracker_ ? tracker_->combo().id : 0; }

  // The signals of bars [next(), needs_from() + bars.size()), where `bars` are bars
  // [needs_from(), ...) of the history; next() moves past them. Bars before next() only
  // extend the tracker. std::logic_error when not following.
  std::vector<Signal> take(std::span<const Bar> bars);

 private:
  std::optional<PositionTracker> tracker_;
  uint64_t params_seq_ = 0;
  size_t next_ = 0;
  std::multiset<size_t> held_;  // ends of the runs whose publication is not decided
};

// The PROTOCOL §2a payload: {"schema":1,"symbol":…,"strategy":…,"ts":…,"position":…,
// "id":…,"params_seq":…}. Symbol and strategy names never need escaping (SPEC §1 and
// PROTOCOL §4 restrict them to [A-Za-z0-9._:/-]); the config checks both.
std::string signal_payload(std::string_view symbol, std::string_view strategy, const Signal& s,
                           uint64_t combo_id, uint64_t params_seq);

}  // namespace wfod::daemon
