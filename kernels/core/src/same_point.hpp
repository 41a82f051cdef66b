// Whether two combos are the same point of a grid (every parameter equal): how a stream checks
// that a combo a caller hands it is the grid point its id names (the cpu and cuda streams'
// queries).
#pragma once

#include "wfod/grid.hpp"

namespace wfod::detail {

inline bool same_point(const Combo& a, const Combo& b) {
  return a.family == b.family && a.fast == b.fast && a.slow == b.slow && a.ma == b.ma &&
         a.entry == b.entry && a.n == b.n && a.source == b.source && a.k == b.k &&
         a.style == b.style && a.lo == b.lo && a.hi == b.hi && a.side == b.side &&
         a.has_vol == b.has_vol && a.vol_short == b.vol_short && a.vol_long == b.vol_long &&
         a.vol_threshold == b.vol_threshold && a.has_stops == b.has_stops &&
         a.stop_loss == b.stop_loss && a.take_profit == b.take_profit &&
         a.trailing_stop == b.trailing_stop;
}

}  // namespace wfod::detail
