// The position rules of one combo (SPEC §2, §4, §5) as every host path runs them: what a
// lane reads (LaneInput), the per-bar decision, p_t from p_{t-1}, and the scan back to the
// bar that fixes p_t. The cpu backend's vector kernel (cpu/lane_kernel.hpp) forms the same
// values lane-wise; position trackers, the sequential fallback and the cuda backend's host
// side call these directly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/lane_kinds.hpp"
#include "wfod/family_rules.hpp"
#include "wfod/grid.hpp"
#include "wfod/indicators.hpp"

namespace wfod::detail {

// Per-bar quantities shared by every combo: the exit gap and body return of bar t, as
// fractions of c_{t-1} (SPEC §2), the close (for channel breakouts and stops) and, with fill
// next_open, the open (a trade's entry price for its stops, SPEC §5b).
// The columns may hold only a tail of the history: bar t is at [t - base].
struct BarTables {
  const double* gap;   // (x_t - c_{t-1}) / c_{t-1}; 0 for fill = close
  const double* body;  // (c_t - x_t) / c_{t-1}
  const double* close;
  double cost;      // per unit of position change
  size_t base = 0;  // the bar at index 0 of the columns
  // o_t with fill = next_open: a trade begun at t0 enters at o_{t0+1}, read at bar t0 + 1;
  // nullptr with fill = close (the entry is c_{t0}, read from `close`).
  const double* entry_open = nullptr;
};

// What one lane (combo) reads. ma_cross: a = fast MA, b = slow MA. channel_breakout:
// a = HH, b = LL. bollinger: a = SMA(n), b = STD(n) with the zero rule applied (a vol row),
// k = band width. rsi_reversion: a = b = RSI(n), lo/hi = levels. vol_short/vol_long: STD
// rows with the zero rule applied.
struct LaneInput {
  // Offsets of the rows in the indicator matrix (for the vector kernel), and the same rows
  // as pointers (for scalar scans).
  int64_t off_a = 0, off_b = 0, off_vol_short = 0, off_vol_long = 0;
  const double* a = nullptr;
  const double* b = nullptr;
  const double* vol_short = nullptr;
  const double* vol_long = nullptr;
  double threshold = 0;
  double k = 0;               // bollinger
  double lo = 0, hi = 0;      // rsi_reversion
  double short_value = -1;    // -1 long_short, 0 long_only
  size_t first_defined = 0;   // p_t = 0 before this bar (any indicator undefined)
  size_t signal_defined = 0;  // first bar where a and b are both defined
  // SPEC §5b's stops, fractions (0: that stop off); src/stop_rules.hpp runs them.
  double stop_loss = 0, take_profit = 0, trailing_stop = 0;
  bool stops_on() const { return stop_loss != 0 || take_profit != 0 || trailing_stop != 0; }
};

// The decision at the close of bar t: set the position to `value`, or hold (set = false).
struct Decision {
  bool set;
  double value;
};

template <Family F, bool Cross, bool Vol>
inline Decision decide(const LaneInput& in, const double* close, size_t t) {
  if (t < in.first_defined) return {true, 0.0};
  constexpr auto greater = [](double x, double y) { return db_greater(x, y); };
  TrendSignals<bool> s;
  if constexpr (F == Family::ma_cross) {
    s = ma_cross_signals(in.a[t], in.b[t], greater);
    if constexpr (Cross) {
      const bool before_ok = t >= 1 && t - 1 >= in.signal_defined;
      const TrendSignals<bool> before = before_ok
                                            ? ma_cross_signals(in.a[t - 1], in.b[t - 1], greater)
                                            : TrendSignals<bool>{false, false};
      s = cross_entries(s, before, before_ok);
    }
  } else {
    s = channel_signals(close[t], in.a[t], in.b[t]);
  }
  if constexpr (Vol) {
    const double lv = in.vol_long[t];
    s = gate_trend(s, lv != 0.0 && db_greater(in.vol_short[t] / lv, in.threshold));
  }
  return {s.up || s.down, trend_rule(s, 0.0, in.short_value, 1.0)};
}

// Where a bollinger / rsi_reversion lane's x stands at bar t against its levels (SPEC §4
// dead band), with U = M + k S and L = M - k S (k S rounded once; no fused multiply-add) or
// the RSI levels hi, lo and 50. The vector kernel forms the same values lane-wise.
template <Family F>
inline LevelSignals<bool> level_signals(const LaneInput& in, const double* close, size_t t) {
  double x, upper, lower, middle;
  if constexpr (F == Family::bollinger) {
    x = close[t];
    middle = in.a[t];
    const double offset = in.k * in.b[t];
    upper = middle + offset;
    lower = middle - offset;
  } else {
    x = in.a[t];
    middle = kRsiMiddle;
    upper = in.hi;
    lower = in.lo;
  }
  return {db_greater(x, upper), db_greater(lower, x), db_greater(x, middle), db_greater(middle, x)};
}

// Whether the vol filter is open at bar t (its rows defined): v_t ≻ threshold, where a
// long-window STD counting as 0 closes it (SPEC §5).
inline bool vol_open(const LaneInput& in, size_t t) {
  const double lv = in.vol_long[t];
  return lv != 0.0 && db_greater(in.vol_short[t] / lv, in.threshold);
}

// p_t of one lane of kind `Kind` given p_{t-1} = held.
template <int Kind>
inline double next_position(const LaneInput& in, const double* close, size_t t, double held) {
  constexpr Family F = family_of_kind(Kind);
  if constexpr (Kind == kGivenKind) {  // r_t evaluated beforehand (a rules strategy)
    (void)close;
    (void)held;
    return in.a[t];
  } else if constexpr (level_kind(Kind)) {
    if (t < in.first_defined) return 0.0;
    if constexpr (vol_of_kind(Kind))
      if (!vol_open(in, t)) return held;
    return level_rule<double, bool>(fade_of_kind(Kind), level_signals<F>(in, close, t), held,
                                    in.short_value, 1.0, 0.0);
  } else {
    const Decision d = decide<F, cross_of_kind(Kind), vol_of_kind(Kind)>(in, close, t);
    return d.set ? d.value : held;
  }
}

// Position p_t of one lane. Set-or-hold kinds: scan back to the last bar that sets it (0 if
// none). Level kinds: p_t depends on p_{t-1} through "keep while on the middle's side", so
// the scan composes each bar's map p_{s-1} -> p_s (over -1, 0, +1) back from t until the
// composition no longer depends on its input: an entry, an undefined bar, a "set 0" bar, or
// two bars whose maps together are constant (a long kept below the middle after a bar above
// it is flat either way).
template <int Kind>
inline double position_at(const LaneInput& in, const double* close, ptrdiff_t t) {
  if constexpr (Kind == kGivenKind) {
    (void)close;
    return t < 0 ? 0.0 : in.a[t];
  } else if constexpr (!level_kind(Kind)) {
    constexpr Family F = family_of_kind(Kind);
    for (; t >= 0; --t) {
      const Decision d =
          decide<F, cross_of_kind(Kind), vol_of_kind(Kind)>(in, close, static_cast<size_t>(t));
      if (d.set) return d.value;
    }
    return 0.0;
  } else {
    double map[3] = {-1.0, 0.0, 1.0};  // p_t as a function of p_{s-1} = -1, 0, +1
    for (; t >= 0; --t) {
      const size_t s = static_cast<size_t>(t);
      double next[3];
      for (int i = 0; i < 3; ++i) {
        const double step = next_position<Kind>(in, close, s, static_cast<double>(i - 1));
        next[i] = map[static_cast<int>(step) + 1];
      }
      for (int i = 0; i < 3; ++i) map[i] = next[i];
      if (map[0] == map[1] && map[1] == map[2]) return map[0];
    }
    return map[1];  // p_{-1} = 0
  }
}

// The set-or-hold form for ma_cross / channel_breakout (the older interface).
template <Family F, bool Cross, bool Vol>
inline double position_at(const LaneInput& in, const double* close, ptrdiff_t t) {
  return position_at<kind_of(F, Cross, Vol)>(in, close, t);
}

}  // namespace wfod::detail
