// One combo's walk through bars with SPEC §5b's stops, written once for host and device
// (WFOD_HD) over the family's decision as callables: next(t, r_prev) is the family's own
// target r_t from r_{t-1} (0 while its indicators are undefined), r_at(t) is r_t found by
// scanning back (0 for t < 0). The cpu backend's scalar replays call it with the lane rules
// (src/stop_rules.hpp), the cuda backend's stop evaluator with the device rules
// (kernels/cuda/stop_eval.cuh), and a host unit test with cpu_ref's r_t, so the state machine
// a device thread runs is checked against the oracle on a machine without a GPU.
#pragma once

#include <cstdint>

#include "wfod/detail/hd.hpp"
#include "wfod/detail/stop_step.hpp"

namespace wfod::detail {

// p_t of one combo from its state entering bar t, which it leaves entering t + 1: the family's
// r_t from r_{t-1} (from p_{t-1} itself when `stops` is false: p = r, as without §5b), then,
// with `stops`, stop_step. close and entry_open (o_t with fill next_open, else null) are
// bar-indexed; `greater` is SPEC §4's dead band.
template <typename Next, typename Greater>
WFOD_HD inline int8_t walk_step(Next& next, bool stops, const StopLevels<double, bool>& lv,
                                const double* close, const double* entry_open, long long t,
                                ComboState& s, Greater greater) {
  double p;
  if (!stops) {
    p = next(t, static_cast<double>(s.p1));
  } else {
    const double r = next(t, static_cast<double>(s.stop.r1));
    // A trade held at t - 1 began at t >= 1 (p_{-1} = 0): c_{t-1} exists when it is read.
    const bool fresh = s.p1 != 0 && s.p1 != s.p2;
    const double fresh_entry = !fresh ? 0.0 : entry_open ? entry_open[t] : close[t - 1];
    StopVars<double> v{static_cast<double>(s.stop.stopped), s.stop.entry, s.stop.extreme};
    p = stop_step<double, bool>(r, static_cast<double>(s.p1), static_cast<double>(s.p2), close[t],
                                fresh_entry, lv, v, 0.0, greater);
    s.stop.entry = v.entry;
    s.stop.extreme = v.extreme;
    s.stop.r1 = static_cast<int8_t>(r);
    s.stop.stopped = static_cast<int8_t>(v.stopped);
  }
  s.p2 = s.p1;
  s.p1 = static_cast<int8_t>(p);
  return s.p1;
}

// The state entering bar f without a stored one. Without stops: p_{f-2} by scanning back and
// p_{f-1} from it (every position is r's). With stops, p_t depends on the trade's path, so the
// scan back to the last deciding bar is not enough; but at a bar s where r_s != r_{s-1} or
// r_s = 0, no stop is pending and p_s = r_s whatever came before (a stop holds p = 0 only while
// r stays the stopped side; not stopped, p = r), and a trade begins at s when r_s != 0. So:
// find the last such s <= f - 2 in look-backs that double from 64 bars (r over them from
// r_at(b - 1)), then run the step forward from the state after s (p_{s-1} stands in as 0:
// with r_s != 0 the trade is fresh at s + 1 either way). Without such a bar, from the anchor.
template <typename Next, typename At, typename Greater>
WFOD_HD inline ComboState walk_state_entering(Next& next, At& r_at, bool stops,
                                              const StopLevels<double, bool>& lv,
                                              const double* close, const double* entry_open,
                                              long long f, Greater greater) {
  ComboState s;
  if (f <= 0) return s;
  if (!stops) {
    const double p2 = r_at(f - 2);
    s.p2 = static_cast<int8_t>(p2);
    s.p1 = static_cast<int8_t>(next(f - 1, p2));
    return s;
  }
  long long from = 0;
  for (long long look = 64;; look *= 2) {
    if (f <= look + 2) break;  // from the anchor
    const long long b = f - 2 - look;
    double r_prev = r_at(b - 1);
    long long reset = -1;
    double r_reset = 0;
    for (long long t = b; t <= f - 2; ++t) {
      const double r = next(t, r_prev);
      if (r != r_prev || r == 0) {
        reset = t;
        r_reset = r;
      }
      r_prev = r;
    }
    if (reset >= 0) {
      const auto r = static_cast<int8_t>(r_reset);
      s.p2 = 0;
      s.p1 = r;
      s.stop = StopState{0, 0, r, 0};
      from = reset + 1;
      break;
    }
  }
  for (long long t = from; t < f; ++t) walk_step(next, true, lv, close, entry_open, t, s, greater);
  return s;
}

// Walks bars [first, last) from the state s entering `first`: at each bar t, visit(t, p_{t-2},
// p_{t-1}) (the positions held through its exit segment and its body, SPEC §2), then the step
// to p_t. s is left entering `last` (its p2 is then p_{last-2}, the last bar's body).
template <typename Next, typename Greater, typename Visit>
WFOD_HD inline void walk_bars(Next& next, bool stops, const StopLevels<double, bool>& lv,
                              const double* close, const double* entry_open, long long first,
                              long long last, ComboState& s, Greater greater, Visit& visit) {
  for (long long t = first; t < last; ++t) {
    visit(t, static_cast<double>(s.p2), static_cast<double>(s.p1));
    walk_step(next, stops, lv, close, entry_open, t, s, greater);
  }
}

}  // namespace wfod::detail
