// What every host evaluation path (the cpu backend's sweeps and streams, position trackers,
// the cuda backend's host side) shares: a combo's LaneInput from whichever indicator store
// holds its rows, its positions (its stops' included) run forward or replayed from a stored
// state, and the exact sequential fallback for combos whose equity reaches zero.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "src/indicator_cache.hpp"
#include "src/lane_kinds.hpp"
#include "src/position_rules.hpp"
#include "src/stop_rules.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/metrics.hpp"
#include "wfod/summary.hpp"

namespace wfod::detail {

// Rows: IndicatorCache or RollingIndicators. Their rows have offset and first_defined;
// rows.data(row) is the row's bar-0 pointer, or nullptr where the store keeps only a tail of
// the series (then only the vector kernel with explicit start states may read it).
template <typename Rows>
LaneInput lane_input(const Rows& rows, const Combo& c) {
  LaneInput in;
  const typename std::remove_cvref_t<decltype(rows.vol(0))>* a = nullptr;
  decltype(a) b = nullptr;
  switch (c.family) {
    case Family::ma_cross:
      a = &rows.ma(c.ma, c.fast);
      b = &rows.ma(c.ma, c.slow);
      break;
    case Family::channel_breakout:
      a = &rows.upper(c.source, c.n);
      b = &rows.lower(c.source, c.n);
      break;
    case Family::bollinger:  // M = SMA(n), S = STD(n) counted as 0 where SPEC §4 says so
      a = &rows.ma(MaType::sma, c.n);
      b = &rows.vol(c.n);
      in.k = c.k;
      break;
    case Family::rsi_reversion:
      a = b = &rows.rsi(c.n);
      in.lo = c.lo;
      in.hi = c.hi;
      break;
    case Family::rules:  // refused first by the backends' supports()
      throw Unsupported("lane inputs of a rules strategy (SPEC §5a): cpu_ref runs rules");
  }
  in.off_a = rows.offset(*a);
  in.off_b = rows.offset(*b);
  in.a = rows.data(*a);
  in.b = rows.data(*b);
  in.signal_defined = std::max(a->first_defined, b->first_defined);
  in.first_defined = in.signal_defined;
  if (c.has_vol) {
    const auto &vs = rows.vol(c.vol_short), &vl = rows.vol(c.vol_long);
    in.off_vol_short = rows.offset(vs);
    in.off_vol_long = rows.offset(vl);
    in.vol_short = rows.data(vs);
    in.vol_long = rows.data(vl);
    in.threshold = c.vol_threshold;
    in.first_defined = std::max({in.first_defined, vs.first_defined, vl.first_defined});
  }
  in.short_value = c.side == Side::long_short ? -1.0 : 0.0;
  in.stop_loss = c.stop_loss;
  in.take_profit = c.take_profit;
  in.trailing_stop = c.trailing_stop;
  return in;
}

// Appends p_t for t in [start, end) of one combo (kind_of) to `out`, running its decisions
// (and its stops, where in.stops_on(): src/stop_rules.hpp) from `state`, which enters bar
// `start` and is left entering `end`. `in`'s rows, `close` and `entry_open` (BarTables:
// fill next_open's opens, else nullptr) are bar-indexed, from start - 1 on.
void run_positions(const LaneInput& in, int kind, const double* close, const double* entry_open,
                   size_t start, size_t end, ComboState& state, std::vector<int8_t>& out);
// The same from a stored state instead of from the anchor (what a stream or a tracker
// replays): `in` reads its rows from `matrix` by offset (a RollingIndicators tail: no bar-0
// pointers needed); the bar columns are `bars`' (close, entry_open, from bar bars.base on).
// Rows and bars must hold bars from start - 1 on.
void replay_positions(const LaneInput& in, int kind, const double* matrix, const BarTables& bars,
                      size_t start, size_t end, ComboState& state, std::vector<int8_t>& out);
// p_t for every bar [0, bars) of one combo, by running its decisions forward from the anchor
// (`fill` gives its stops' entry price).
std::vector<int8_t> forward_positions(const IndicatorCache& cache, const HistoryView& h, Fill fill,
                                      const Combo& c, size_t bars);

// Metrics of one combo over [first, end) with a literal drawdown (SPEC §6), valid for any
// equity path: for combos whose 1 + s_t reaches zero, where the Summary drawdown combine
// does not hold. `cache` must hold the combo's rows over the whole history.
Metrics evaluate_sequential(const IndicatorCache& cache, const HistoryView& h, Fill fill,
                            double cost, double bars_per_year, const Combo& c, size_t first,
                            size_t end);

}  // namespace wfod::detail
