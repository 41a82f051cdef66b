// How a stream hands one combo's state to a PositionTracker (Stream::tracker): the tracker
// then continues bar by bar from the stream's newest bar without the history before it.
#pragma once

#include <cstdint>
#include <vector>

#include "src/rolling_indicators.hpp"
#include "src/rules/bar_eval.hpp"
#include "src/rules_combo_rows.hpp"
#include "src/stop_rules.hpp"
#include "src/stream_bars.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::detail {

struct TrackerSeed {
  // A tracker of `combo` at bar rows.bars() == bars.end(): its indicator states and their
  // values at the newest bar copied from the stream's `rows`, its input bars (the indicators'
  // look-back) from `bars`, p_t for t in [first, bars.end()) in `positions`, and its decision
  // state entering the next bar (`state`: p_{t-2}, p_{t-1} and its stops').
  static PositionTracker make(const StrategySpec& spec, const Combo& combo,
                              const RollingIndicators& rows, const StreamBars& bars, size_t first,
                              std::vector<int8_t> positions, const ComboState& state, size_t keep);
  // A rules tracker of `combo` at bar rows.bars(): its rows advanced through the newest bar
  // (a rules stream's states, RulesRowStates::subset), the newest bar's leaves (`now`: its
  // fields and indicator values; unread at the anchor), r_t, c_t and ts of the newest bar,
  // p_t for t in [first, rows.bars()) in `positions`, and its decision state entering the next
  // bar.
  static PositionTracker make_rules(const StrategySpec& spec, const Combo& combo,
                                    RulesComboRows rows, const rules::BarLeaves& now, int8_t r1,
                                    double close1, int64_t last_ts, size_t first,
                                    std::vector<int8_t> positions, const ComboState& state,
                                    size_t keep);
};

}  // namespace wfod::detail
