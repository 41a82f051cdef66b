// Positions p_t (SPEC §2) of one combo, extended as bars arrive: O(1) per bar per indicator
// series instead of a recomputation over the whole history. What the daemon needs for
// live_oos (SPEC §8) on every publication, and for the winner's p_t at every new bar.
// Every family, rules strategies (SPEC §5a) included, is followed this way. Memory is
// bounded: the indicator states keep their look-back and the tracker keeps the last keep()
// positions (a tracker that started at the anchor and is extended through extend() keeps
// them all, as that call returns them all).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod {

namespace detail {
struct TrackerSeed;  // builds trackers from a stream's state (Stream::tracker)
}

class PositionTracker {
 public:
  // A tracker at the anchor (no bar seen yet): the lanes' rules for a built-in family, the
  // rules tracker (src/rules_tracker.hpp: the program evaluated bar by bar over incremental
  // rows) for a rules combo; both O(rows) per bar. A rules combo's arguments must be in range
  // (rules::RuleError else).
  PositionTracker(const StrategySpec& spec, const Combo& combo);
  // A replaying tracker at the anchor: it keeps every bar from the anchor and asks
  // `positions_of` (a backend's positions_source) for the combo's positions over them when
  // positions are read after new bars, O(history) then, and keeps them all (first_kept() is
  // 0). No path of the engine or the daemon builds one any more; it stays as the plain
  // cross-check the incremental trackers are measured and tested against.
  PositionTracker(const StrategySpec& spec, const Combo& combo, PositionsOf positions_of);
  // The tracker for `combo` on `backend`: PositionTracker(spec, combo), whose positions are
  // every backend's (Backend::positions). Kept as the daemon's one way to ask.
  static PositionTracker make(const Backend& backend, const StrategySpec& spec, const Combo& combo);
  // Whether make() can follow `spec`'s combos on `backend`: yes for every family since rules
  // have their incremental tracker (the backend's own refusals come from supports()).
  static Support follows(const Backend& backend, const StrategySpec& spec);
  ~PositionTracker();
  PositionTracker(PositionTracker&&) noexcept;
  PositionTracker& operator=(PositionTracker&&) noexcept;

  // p_t for every bar of `h`, which must extend the history of the previous call (bars from
  // the same anchor); identical to Backend::positions(h, spec, combo). Only for a tracker
  // that started at the anchor and has never dropped a position (std::logic_error else).
  const std::vector<int8_t>& extend(const HistoryView& h);

  // Appends bars after the last one seen (ts strictly increasing, else std::invalid_argument
  // and nothing is appended) and decides their positions.
  void append(std::span<const Bar> bars);
  // Keep at least the last `bars` positions from now on (older ones are dropped in bulk).
  void set_keep(size_t bars);

  size_t bars() const;        // bars seen, counted from the anchor
  size_t first_kept() const;  // oldest bar whose position is still known
  size_t keep() const;
  // p_t for t in [first, end), first_kept() <= first <= end <= bars(); std::out_of_range else.
  std::vector<int8_t> positions(size_t first, size_t end) const;
  // p_{bars()-1}, the newest position (0 before any bar).
  int8_t last() const;
  const Combo& combo() const;
  // Bytes the tracker holds (its rows' states and input tail, its kept positions): bounded by
  // the look-back and keep(), not by bars(), except for a replaying tracker.
  size_t footprint_bytes() const;

  // An independent copy at the same bar: it holds the last min(keep, kept) positions and
  // keeps `keep` from then on; both continue alike through append(). O(look-back + keep) (a
  // replaying tracker's copy: O(history)), so the
  // daemon's worker can hand the published combo's tracker to the loop thread (signals).
  PositionTracker fork(size_t keep) const;

 private:
  friend struct detail::TrackerSeed;
  struct State;
  struct Replay;  // src/position_replay.hpp
  struct Rules;   // src/rules_tracker.hpp
  explicit PositionTracker(std::unique_ptr<State> state);
  explicit PositionTracker(std::unique_ptr<Replay> replay);
  explicit PositionTracker(std::unique_ptr<Rules> rules);
  std::unique_ptr<State> state_;    // the lanes' incremental tracker, or
  std::unique_ptr<Rules> rules_;    // a rules combo's incremental tracker, or
  std::unique_ptr<Replay> replay_;  // replaying
};

}  // namespace wfod
