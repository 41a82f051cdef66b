// PositionTracker::Rules: the incremental tracker of a rules combo (SPEC §5a). Per bar: its
// indicator rows advanced (rules_combo_rows.hpp), the four conditions evaluated at the bar
// with the previous bar's leaves for crosses (rules/bar_eval.hpp), the undefined rule and the
// vol filter, §5a's transitions to r_t (rules/transitions.hpp), then §5b's stops to p_t
// (stop_rules.hpp, the lanes' step). O(rows + program) per bar; it keeps the rows' look-back
// of input bars, the previous bar's leaves and the last keep() positions, whatever the
// history's length. Its p_t are Backend::positions' (cpu_ref's) bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "src/kept_positions.hpp"
#include "src/rules/bar_eval.hpp"
#include "src/rules_combo_rows.hpp"
#include "src/stop_rules.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod {

struct PositionTracker::Rules {
  Rules(const StrategySpec& spec, const Combo& c);

  // Throws std::invalid_argument (naming the bar) unless ts increases strictly from the last
  // bar's: appends are all or nothing.
  void check_order(std::span<const Bar> bars) const;
  // Decides the next bar (after check_order).
  void step(const Bar& bar);

  size_t bars() const { return rows.bars(); }
  size_t footprint_bytes() const;

  Combo combo;
  Fill fill;
  detail::RulesComboRows rows;
  rules::BarEvaluator eval;
  rules::BarLeaves now, before;  // the newest bar's leaves and the one's before it
  detail::LaneInput stops;       // the combo's stop fractions, for stop_step
  detail::ComboState state;      // entering the next bar: p_{t-2}, p_{t-1}, the stops'
  int8_t r1 = 0;                 // r_{t-1}: the transitions start from the target, not p
  double close1 = 0;             // c_{t-1}: a fresh trade's entry with fill close
  int64_t last_ts = INT64_MIN;
  detail::KeptPositions kept;
};

}  // namespace wfod
