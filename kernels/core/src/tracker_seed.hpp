// How a stream hands one combo's state to a PositionTracker (Stream::tracker): the tracker
// then continues bar by bar from the stream's newest bar without the history before it.
#pragma once

#include <cstdint>
#include <vector>

#include "src/rolling_indicators.hpp"
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
};

}  // namespace wfod::detail
