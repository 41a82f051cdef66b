// cpu_ref stops (SPEC §5b), run bar by bar in the order §5b lists the decisions at a close:
// stopped out -> wait for r_t to leave the stopped side; r_t changed -> follow it (no stop);
// else a held trade's stops are checked against levels formed one rounded operation at a time.
#include "ref_stops.hpp"

#include <algorithm>
#include <stdexcept>

#include "ref_numeric.hpp"

namespace wfod::ref {
namespace {

// Whether the held trade's stops fire at close c. e: entry price, extreme: the trade's peak
// (long) or trough (short) including c. Each level is `e * (1 ∓ f)` with the bracket
// rounded, then the product rounded: two float64 operations (-ffp-contract=off: no FMA).
bool stop_fires(int8_t side, double c, double e, double extreme, const Stops& s) {
  if (side > 0) {
    if (s.stop_loss != 0) {
      const double level = e * (1.0 - s.stop_loss);
      if (dead_band_compare(c, level) != Order::greater) return true;  // not (c ≻ SL)
    }
    if (s.take_profit != 0) {
      const double level = e * (1.0 + s.take_profit);
      if (dead_band_compare(c, level) != Order::less) return true;  // not (c ≺ TP)
    }
    if (s.trailing_stop != 0) {
      const double level = extreme * (1.0 - s.trailing_stop);
      if (dead_band_compare(c, level) != Order::greater) return true;  // not (c ≻ TS)
    }
    return false;
  }
  if (s.stop_loss != 0) {
    const double level = e * (1.0 + s.stop_loss);
    if (dead_band_compare(c, level) != Order::less) return true;  // not (c ≺ SL)
  }
  // SPEC: a short's take-profit of 1 or more never fires (its level is <= 0 < c; said here
  // so the rule does not rest on the dead band's arithmetic at a level of 0).
  if (s.take_profit != 0 && s.take_profit < 1) {
    const double level = e * (1.0 - s.take_profit);
    if (dead_band_compare(c, level) != Order::greater) return true;  // not (c ≻ TP)
  }
  if (s.trailing_stop != 0) {
    const double level = extreme * (1.0 + s.trailing_stop);
    if (dead_band_compare(c, level) != Order::less) return true;  // not (c ≺ TS)
  }
  return false;
}

}  // namespace

std::vector<int8_t> apply_stops(std::span<const int8_t> r, const HistoryView& history, Fill fill,
                                const Stops& stops) {
  if (r.size() != history.size()) {
    throw std::invalid_argument("cpu_ref stops: positions and bars differ in length");
  }
  if (!(stops.stop_loss >= 0 && stops.stop_loss < 1) || !(stops.take_profit >= 0) ||
      !(stops.trailing_stop >= 0 && stops.trailing_stop < 1)) {
    throw std::invalid_argument("cpu_ref stops: a stop outside its range (SPEC §5b)");
  }
  std::vector<int8_t> p(r.begin(), r.end());
  if (!stops.any()) return p;
  const auto close = history.close;
  const auto open = history.open;
  int8_t stopped = 0;  // the side stopped out (0: none)
  int8_t prev = 0;     // p_{t-1}; 0 before the anchor
  size_t t0 = 0;       // the held trade's first bar
  double entry = 0;    // e, once known (fill next_open: at t0 + 1)
  double extreme = 0;  // the trade's peak (long) or trough (short) through c_t
  for (size_t t = 0; t < p.size(); ++t) {
    int8_t now = 0;
    if (stopped != 0) {
      // 1. Stopped out on a side: flat while r_t is that side; anything else is followed
      //    at once (a reversal included) and clears the stop.
      if (r[t] != stopped) {
        now = r[t];
        stopped = 0;
      }
    } else if (r[t] != prev) {
      now = r[t];  // 2. a normal exit or reversal: no stop fires
    } else if (prev != 0) {
      // 3. The held trade, t >= t0 + 1: its entry price is known by now (o_{t0+1} is this
      //    bar's open with next_open); the extreme includes c_t before any level is formed.
      if (t == t0 + 1) {
        entry = fill == Fill::close ? close[t0] : open[t];
        extreme = entry;
      }
      extreme = prev > 0 ? std::max(extreme, close[t]) : std::min(extreme, close[t]);
      if (stop_fires(prev, close[t], entry, extreme, stops)) {
        stopped = prev;
      } else {
        now = prev;
      }
    }
    if (now != 0 && now != prev) t0 = t;  // a trade begins (SPEC §5b)
    p[t] = now;
    prev = now;
  }
  return p;
}

}  // namespace wfod::ref
