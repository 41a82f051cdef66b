// PositionTracker::Replay: a tracker built on a backend's positions source, on request only
// (PositionTracker's constructor taking one). It keeps every bar from the anchor (volumes
// included, which a rule may read) and asks the source for the combo's positions over all of
// them when they are read after new bars: exact by construction (the source is
// Backend::positions), O(history) per read. Every family now has an incremental tracker
// (rules: src/rules_tracker.hpp), so this stays as the plain baseline they are tested and
// measured against (tests/unit/kernels/core/replay_tracker_test.cpp, bench/rules_tracker).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "wfod/position_tracker.hpp"

namespace wfod {

struct PositionTracker::Replay {
  StrategySpec spec;
  Combo combo;
  PositionsOf positions_of;
  Series bars;                            // every bar from the anchor
  mutable std::vector<int8_t> positions;  // p_t of bars [0, positions.size())
  size_t keep = static_cast<size_t>(-1);

  // Appends all of `bars` or none: ts must increase strictly (SPEC §1).
  void append(std::span<const Bar> more) {
    int64_t last = bars.size() ? bars.ts_ns.back() : INT64_MIN;
    for (size_t i = 0; i < more.size(); ++i) {
      if (more[i].ts_ns <= last)
        throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                    std::to_string(more[i].ts_ns) +
                                    " not after the previous bar's " + std::to_string(last));
      last = more[i].ts_ns;
    }
    for (const Bar& b : more) bars.push_back(b);
  }

  // Every bar's position, recomputed once after bars were appended.
  const std::vector<int8_t>& decided() const {
    if (positions.size() != bars.size()) {
      positions = positions_of(HistoryView::of(bars), spec, combo);
      if (positions.size() != bars.size())
        throw std::logic_error("a positions source answered " + std::to_string(positions.size()) +
                               " positions for " + std::to_string(bars.size()) + " bars");
    }
    return positions;
  }
};

}  // namespace wfod
