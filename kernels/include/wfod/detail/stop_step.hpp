// SPEC §5b's stop step, written once for host and device (WFOD_HD): the state a combo's stops
// carry from one close to the next and one bar's step from the family's own target r_t to
// the position p_t, over V = double or a vector of doubles and B = bool or its lane mask
// (like wfod/family_rules.hpp). The cpu lane kernel runs it lane-wise, the scalar replays and
// the cuda backend's stop evaluator (kernels/cuda/stop_eval.cuh) through
// wfod/detail/stop_walk.hpp. cpu_ref keeps its own transcription (cpu_ref/ref_stops.cpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "wfod/detail/hd.hpp"

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

// The levels of one combo's three fractions (0: that stop off).
WFOD_HD inline StopLevels<double, bool> stop_levels_of(double stop_loss, double take_profit,
                                                       double trailing_stop) {
  return {stop_loss != 0,     take_profit != 0,  take_profit != 0 && take_profit < 1,
          trailing_stop != 0, 1.0 - stop_loss,   1.0 + stop_loss,
          1.0 + take_profit,  1.0 - take_profit, 1.0 - trailing_stop,
          1.0 + trailing_stop};
}

// StopState's fields as values of V, for the step below.
template <typename V>
struct StopVars {
  V stopped, entry, extreme;
};

template <typename B>
WFOD_HD inline B mask_not(B m) {
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
WFOD_HD inline V stop_step(V r, V p1, V p2, V close, V fresh_entry, const StopLevels<V, B>& lv,
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

}  // namespace wfod::detail
