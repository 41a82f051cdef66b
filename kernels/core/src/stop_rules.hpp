// SPEC §5b's stops as the fast host paths run them (the cpu backend's lane kernel lane-wise,
// its streams, position trackers and the scalar replays): the state a combo's stops carry
// from one close to the next, one bar's step from the family's own target r_t to the
// position p_t (written once over V = double or a vector of doubles, B = bool or its lane
// mask, like wfod/family_rules.hpp), and the state entering any bar found without a stored
// one. cpu_ref keeps its own transcription of §5b (cpu_ref/ref_stops.cpp), the oracle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "src/lane_kinds.hpp"
#include "src/position_rules.hpp"

namespace wfod::detail {

// What a combo's stops carry from a close to the next, entering bar t: r_{t-1} (the family
// runs on its own target whatever the stops do: its next decision reads r_{t-1}, not
// p_{t-1}), the side stopped out (0: none), and the held trade's entry price and extreme (its
// peak for a long, trough for a short, through c_{t-1}). entry and extreme are set at the
// trade's first checked bar t0 + 1; outside a trade they are stale and never read.
struct StopState {
  double entry = 0, extreme = 0;
  int8_t r1 = 0, stopped = 0;
};

// A combo's whole decision state entering bar t: p_{t-2}, p_{t-1} and its stops' state (left
// as it is by a combo whose stops are all 0: its p_t is r_t).
struct ComboState {
  int8_t p2 = 0, p1 = 0;
  StopState stop;
};

// A combo's stops as level factors: each level is the entry price (or the extreme) times the
// bracket `1 ∓ fraction` of SPEC §5b, rounded once here, so `e * factor` is cpu_ref's
// `e * (1 - stop_loss)` to the bit. *_on: whether the stop acts (a short's take-profit of 1
// or more never fires: its level is <= 0, SPEC §5b).
template <typename V, typename B>
struct StopLevels {
  B sl_on, tp_long_on, tp_short_on, ts_on;
  V sl_long, sl_short, tp_long, tp_short, ts_long, ts_short;
};

inline StopLevels<double, bool> stop_levels(const LaneInput& in) {
  return {in.stop_loss != 0,     in.take_profit != 0,  in.take_profit != 0 && in.take_profit < 1,
          in.trailing_stop != 0, 1.0 - in.stop_loss,   1.0 + in.stop_loss,
          1.0 + in.take_profit,  1.0 - in.take_profit, 1.0 - in.trailing_stop,
          1.0 + in.trailing_stop};
}

// StopState's fields as values of V, for the step below.
template <typename V>
struct StopVars {
  V stopped, entry, extreme;
};

template <typename B>
inline B mask_not(B m) {
  if constexpr (std::is_same_v<B, bool>)
    return !m;
  else
    return ~m;
}

// p_t from r_t at bar t's close (SPEC §5b, in its order): stopped out on a side, p_t = 0 while
// r_t is that side and r_t once it leaves it (the stop cleared); otherwise a changed r_t is
// followed (no stop fires); otherwise a held trade (r_t = p_{t-1} != 0) has its stops checked
// at c_t and one that fires sets p_t = 0 and stops out the held side. p1, p2: p_{t-1},
// p_{t-2}; a held trade with p1 != p2 began at t - 1, so its entry price is `fresh_entry`
// (c_{t-1}, or o_t with fill next_open) and its extreme starts there. `greater` is SPEC §4's
// dead-band x ≻ y; a long keeps while c ≻ SL, c ≺ TP and c ≻ TS, a short while c ≺ SL,
// c ≻ TP and c ≺ TS (a pair's operands are swapped by side, so each stop costs one
// comparison). The caller sets r_{t-1} = r after the step.
template <typename V, typename B, typename Greater>
inline V stop_step(V r, V p1, V p2, V close, V fresh_entry, const StopLevels<V, B>& lv,
                   StopVars<V>& s, V zero, Greater greater) {
  const B stopped = static_cast<B>(s.stopped != zero);
  const B leaves = static_cast<B>(r != s.stopped);
  const B held = static_cast<B>(static_cast<B>(static_cast<B>(r == p1) & mask_not(stopped)) &
                                static_cast<B>(p1 != zero));
  const B is_long = static_cast<B>(p1 > zero);
  const B fresh = static_cast<B>(p1 != p2);
  const V entry = fresh ? fresh_entry : s.entry;
  V extreme = fresh ? entry : s.extreme;
  extreme = is_long ? (extreme < close ? close : extreme) : (close < extreme ? close : extreme);
  const V sl = entry * (is_long ? lv.sl_long : lv.sl_short);
  const V tp = entry * (is_long ? lv.tp_long : lv.tp_short);
  const V ts = extreme * (is_long ? lv.ts_long : lv.ts_short);
  const B sl_keep = greater(is_long ? close : sl, is_long ? sl : close);
  const B tp_keep = greater(is_long ? tp : close, is_long ? close : tp);
  const B ts_keep = greater(is_long ? close : ts, is_long ? ts : close);
  const B tp_on = is_long ? lv.tp_long_on : lv.tp_short_on;
  const B fires = static_cast<B>(static_cast<B>(lv.sl_on & mask_not(sl_keep)) |
                                 static_cast<B>(tp_on & mask_not(tp_keep)) |
                                 static_cast<B>(lv.ts_on & mask_not(ts_keep)));
  const B fire = static_cast<B>(held & fires);
  s.entry = held ? entry : s.entry;
  s.extreme = held ? extreme : s.extreme;
  const V p = stopped ? (leaves ? r : zero) : (fire ? zero : r);
  s.stopped = stopped ? (leaves ? zero : s.stopped) : (fire ? p1 : zero);
  return p;
}

// p_t of one combo of kind Kind (lane_kinds.hpp) from its state entering bar t, which it
// leaves entering t + 1: the family's r_t from r_{t-1} (p_{t-1} itself when `stops` is false,
// as without §5b), then, with `stops` (in.stops_on()), the step above. in's rows, close and
// entry_open (BarTables::entry_open: fill next_open, else nullptr) are bar-indexed.
template <int Kind>
inline int8_t step_combo(const LaneInput& in, bool stops, const double* close,
                         const double* entry_open, size_t t, ComboState& s) {
  double p;
  if (!stops) {
    p = next_position<Kind>(in, close, t, s.p1);
  } else {
    const double r = next_position<Kind>(in, close, t, s.stop.r1);
    // A trade held at t - 1 began at t >= 1 (p_{-1} = 0): c_{t-1} exists when it is read.
    const bool fresh = s.p1 != 0 && s.p1 != s.p2;
    const double fresh_entry = !fresh ? 0.0 : entry_open ? entry_open[t] : close[t - 1];
    StopVars<double> v{static_cast<double>(s.stop.stopped), s.stop.entry, s.stop.extreme};
    p = stop_step<double, bool>(r, s.p1, s.p2, close[t], fresh_entry, stop_levels(in), v, 0.0,
                                db_greater);
    s.stop = {v.entry, v.extreme, static_cast<int8_t>(r), static_cast<int8_t>(v.stopped)};
  }
  s.p2 = s.p1;
  s.p1 = static_cast<int8_t>(p);
  return s.p1;
}

// The state entering bar f (f >= 1) of a combo whose stops act, from rows and bars that are
// bar-indexed from the anchor (the sweeps' columns): what a time chunk starts from without a
// stored state. Stops make p_t depend on the trade's path, so position_at's scan back to the
// last deciding bar is not enough; but at a bar s where r_s != r_{s-1} or r_s = 0, no stop is
// pending and p_s = r_s whatever came before (a stop holds p = 0 only while r stays the
// stopped side; not stopped, p = r), and a trade begins at s when r_s != 0. So: find the last
// such s <= f - 2 in look-backs that double from 64 bars (r over them from position_at's
// r_{b-1}), then run the step forward from the state after s (p_{s-1} stands in as 0: with
// r_s != 0 the trade is fresh at s + 1 either way). Without such a bar, from the anchor.
template <int Kind>
inline ComboState stop_state_entering(const LaneInput& in, const double* close,
                                      const double* entry_open, size_t f) {
  ComboState s;
  auto run_from = [&](size_t from) {
    for (size_t t = from; t < f; ++t) step_combo<Kind>(in, true, close, entry_open, t, s);
  };
  for (size_t look = 64;; look *= 2) {
    if (f <= look + 2) {
      run_from(0);
      return s;
    }
    const size_t b = f - 2 - look;
    double r_prev = position_at<Kind>(in, close, static_cast<ptrdiff_t>(b) - 1);
    size_t reset = 0;
    double r_reset = 0;
    bool found = false;
    for (size_t t = b; t <= f - 2; ++t) {
      const double r = next_position<Kind>(in, close, t, r_prev);
      if (r != r_prev || r == 0) {
        reset = t;
        r_reset = r;
        found = true;
      }
      r_prev = r;
    }
    if (found) {
      const auto r = static_cast<int8_t>(r_reset);
      s = ComboState{0, r, StopState{0, 0, r, 0}};
      run_from(reset + 1);
      return s;
    }
  }
}

}  // namespace wfod::detail
