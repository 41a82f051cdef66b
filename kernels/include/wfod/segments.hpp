// Strategy returns per SPEC §2: each bar t >= 1 is an exit segment held at p_{t-2} and a
// body segment held at p_{t-1}; fill mode decides where the exit price x_t sits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/summary.hpp"

namespace wfod {

// Segments of bar t (t >= 1) given p_{t-2} and p_{t-1} and the cost per unit of change.
inline BarSegments bar_segments(const HistoryView& h, Fill fill, double cost, size_t t, int8_t p2,
                                int8_t p1) {
  const double prev_close = h.close[t - 1];
  const double x = fill == Fill::close ? prev_close : h.open[t];
  const bool changed = p1 != p2;
  BarSegments b;
  b.exit_pos = p2;
  b.body_pos = p1;
  b.exit_value = p2 * (x - prev_close) / prev_close - (changed ? cost * (p2 < 0 ? -p2 : p2) : 0.0);
  b.body_value = p1 * (h.close[t] - x) / prev_close - (changed ? cost * (p1 < 0 ? -p1 : p1) : 0.0);
  return b;
}

// p_t of a position series, flat (0) where t is outside it: past its end, or before bar 0
// (t - 2 at bar 1 wraps to a huge index).
inline int8_t position_or_flat(std::span<const int8_t> p, size_t t) {
  return t < p.size() ? p[t] : 0;
}

// A combo's returns over bars [first, end) (1 <= first), the one place that turns a position
// series into them: sink(t, segments) for each bar t in order, its exit segment held at
// p_{t-2} and its body at p_{t-1} of `p` (position_or_flat). Only bar `first`'s exit segment
// is held at `first_exit` instead: at a change of holder (a walk-forward fold's first bar,
// live_oos after a new publication; SPEC §8) it is still the previous holder's p_{first-2}.
// Without a change of holder, pass position_or_flat(p, first - 2).
template <typename Sink>
inline void for_each_segment(const HistoryView& h, Fill fill, double cost,
                             std::span<const int8_t> p, size_t first, size_t end, int8_t first_exit,
                             Sink&& sink) {
  for (size_t t = first; t < end; ++t) {
    const int8_t p2 = t == first ? first_exit : position_or_flat(p, t - 2);
    sink(t, bar_segments(h, fill, cost, t, p2, position_or_flat(p, t - 1)));
  }
}

// Exit gap and body return of bars [0, bars) as fractions of the previous close, the
// per-bar quantities every combo shares (bar 0 has none: zeros).
inline void bar_returns(const HistoryView& h, Fill fill, size_t bars, std::vector<double>& gap,
                        std::vector<double>& body) {
  gap.assign(bars, 0.0);
  body.assign(bars, 0.0);
  for (size_t t = 1; t < bars; ++t) {
    const double prev = h.close[t - 1];
    const double x = fill == Fill::close ? prev : h.open[t];
    gap[t] = (x - prev) / prev;
    body[t] = (h.close[t] - x) / prev;
  }
}

}  // namespace wfod
