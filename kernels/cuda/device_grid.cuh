// A grid as the device sees it: per-axis tables (values and the indicator row each value
// reads), the mixed-radix decode of a combo id (SPEC §5, first axis fastest), and the
// decision rules of the strategy families (SPEC §4-5) on the transposed indicator matrix
// value(row, t) = matrix[t * rows + row], through wfod/family_rules.hpp's rules (trend_rule
// for ma_cross and channel_breakout, level_rule for bollinger and rsi_reversion).
#pragma once

#include <cstdint>

#include "wfod/family_rules.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cuda {

inline constexpr int kMaxAxes = 8;

// Families as the kernels' template argument (KernelKind::family, GridTables::family).
inline constexpr int kMaCross = 0, kChannel = 1, kBollinger = 2, kRsi = 3;
// bollinger and rsi_reversion: p_t depends on p_{t-1} beyond set-or-hold (level_rule).
__host__ __device__ constexpr bool is_level_family(int family) { return family >= kBollinger; }

struct GridTables {
  int family = 0;  // kMaCross, kChannel, kBollinger or kRsi
  int has_vol = 0;
  int axes = 0;
  uint64_t radix[kMaxAxes] = {};
  // ma_cross: a = fast, b = slow (values; rows indexed [ma][value]); the others: a = n.
  const int* a_value = nullptr;
  const int* b_value = nullptr;
  // ma: [ma_i * n_fast + fast_i]; breakout: upper [src_i * n_n + n_i]; bollinger: SMA [n_i];
  // rsi_reversion: RSI [n_i].
  const int* a_row = nullptr;
  // ma: [ma_i * n_slow + slow_i]; breakout: lower [src_i * n_n + n_i]; bollinger: STD [n_i]
  // (0 where it counts as 0, SPEC §4); rsi_reversion: RSI [n_i].
  const int* b_row = nullptr;
  const double* k_value = nullptr;      // bollinger: per k value
  const int* fade = nullptr;            // bollinger: per style value, 1 reversion, 0 breakout
  const double* lo_value = nullptr;     // rsi_reversion: per lo value
  const double* hi_value = nullptr;     // rsi_reversion: per hi value
  const double* short_value = nullptr;  // per side value: -1 long_short, 0 long_only
  const int* cross = nullptr;           // per entry value: 1 cross, 0 state
  const int* vs_value = nullptr;
  const int* vl_value = nullptr;
  const int* vs_row = nullptr;
  const int* vl_row = nullptr;
  const double* threshold = nullptr;
  const int* row_first_defined = nullptr;
  int rows = 0;
};

struct DeviceCombo {
  bool valid;
  bool cross;
  bool fade;  // level families: reversion style (rsi_reversion always)
  int row_a, row_b, row_vs, row_vl;
  double threshold, short_value;
  double k, lo, hi;  // bollinger's band width; rsi_reversion's levels
  // Level families: the n value's index, and the indices of the upper and lower comparisons'
  // values (bollinger: k's for both; rsi_reversion: hi's and lo's) in LevelBits.
  int n_index, up_index, down_index;
  // Set-or-hold families: the combo's keys in SignalBits (signal_bits.cuh): its pair of rows
  // (ma_cross: ma, slow, fast; channel_breakout: source, n) and its filter (threshold, long,
  // short), fastest last-named first.
  int pair_index, gate_index;
  long long first_defined, signal_defined;
};

__device__ inline DeviceCombo decode_combo(const GridTables& g, uint64_t id) {
  uint64_t digit[kMaxAxes];
  for (int i = 0; i < g.axes; ++i) {
    digit[i] = id % g.radix[i];
    id /= g.radix[i];
  }
  DeviceCombo c{};
  // Canonical order: ma_cross fast, slow, ma, side, entry; channel_breakout n, source, side;
  // bollinger n, k, style, side; rsi_reversion n, lo, hi, side; then the filter's three.
  int side_axis, vol_axis;
  if (g.family == kMaCross) {
    const int fi = static_cast<int>(digit[0]), si = static_cast<int>(digit[1]);
    const int mi = static_cast<int>(digit[2]);
    const int nf = static_cast<int>(g.radix[0]), ns = static_cast<int>(g.radix[1]);
    c.valid = g.a_value[fi] >= 1 && g.b_value[si] >= 1 && g.a_value[fi] < g.b_value[si];
    c.row_a = g.a_row[mi * nf + fi];
    c.row_b = g.b_row[mi * ns + si];
    c.pair_index = (mi * ns + si) * nf + fi;
    c.cross = g.cross[digit[4]] != 0;
    side_axis = 3;
    vol_axis = 5;
  } else if (is_level_family(g.family)) {
    const int ni = static_cast<int>(digit[0]);
    c.row_a = g.a_row[ni];
    c.row_b = g.b_row[ni];
    c.cross = false;
    c.n_index = ni;
    c.down_index = static_cast<int>(digit[1]);
    c.up_index = static_cast<int>(g.family == kBollinger ? digit[1] : digit[2]);
    if (g.family == kBollinger) {
      c.k = g.k_value[digit[1]];
      c.fade = g.fade[digit[2]] != 0;
      c.valid = g.a_value[ni] >= 2 && c.k > 0;
    } else {
      c.lo = g.lo_value[digit[1]];
      c.hi = g.hi_value[digit[2]];
      c.fade = true;
      c.valid = g.a_value[ni] >= 2 && c.lo < c.hi;
    }
    side_axis = 3;
    vol_axis = 4;
  } else {
    const int ni = static_cast<int>(digit[0]), src = static_cast<int>(digit[1]);
    const int nn = static_cast<int>(g.radix[0]);
    c.valid = g.a_value[ni] >= 1;
    c.row_a = g.a_row[src * nn + ni];
    c.row_b = g.b_row[src * nn + ni];
    c.pair_index = src * nn + ni;
    c.cross = false;
    side_axis = 2;
    vol_axis = 3;
  }
  c.short_value = g.short_value[digit[side_axis]];
  c.signal_defined = max(g.row_first_defined[c.row_a], g.row_first_defined[c.row_b]);
  c.first_defined = c.signal_defined;
  c.row_vs = c.row_vl = 0;
  c.threshold = 0;
  if (g.has_vol) {
    const int b = vol_axis;
    const int vsi = static_cast<int>(digit[b]), vli = static_cast<int>(digit[b + 1]);
    c.valid = c.valid && g.vs_value[vsi] >= 1 && g.vs_value[vsi] < g.vl_value[vli];
    c.row_vs = g.vs_row[vsi];
    c.row_vl = g.vl_row[vli];
    c.threshold = g.threshold[digit[b + 2]];
    c.gate_index = static_cast<int>((digit[b + 2] * g.radix[b + 1] + vli) * g.radix[b] + vsi);
    c.first_defined = max(c.first_defined, (long long)max(g.row_first_defined[c.row_vs],
                                                          g.row_first_defined[c.row_vl]));
  }
  return c;
}

__device__ inline bool dev_db_greater(double x, double y) {
  const double ax = fabs(x), ay = fabs(y);
  return x - y > kDeadBand * (ax > ay ? ax : ay);
}

// The decision at the close of bar t: *value set and true, or false to hold (SPEC §5).
// `at` is bar t's column of the transposed matrix (at[row]); the previous bar's column is
// at - rows (cross entries look one bar back); close_t is c_t.
template <int Family, bool Cross, bool Vol>
__device__ inline bool decide_at(const DeviceCombo& c, const double* __restrict__ at, int rows,
                                 double close_t, long long t, double* value) {
  static_assert(!is_level_family(Family), "set-or-hold families only: use next_at()");
  if (t < c.first_defined) {
    *value = 0.0;
    return true;
  }
  constexpr auto greater = [](double x, double y) { return dev_db_greater(x, y); };
  TrendSignals<bool> s;
  if constexpr (Family == 0) {
    s = ma_cross_signals(at[c.row_a], at[c.row_b], greater);
    if constexpr (Cross) {
      const bool before_ok = t - 1 >= c.signal_defined;
      const TrendSignals<bool> before =
          before_ok ? ma_cross_signals(at[c.row_a - rows], at[c.row_b - rows], greater)
                    : TrendSignals<bool>{false, false};
      s = cross_entries(s, before, before_ok);
    }
  } else {
    s = channel_signals(close_t, at[c.row_a], at[c.row_b]);
  }
  if constexpr (Vol) {
    const double lv = at[c.row_vl];
    s = gate_trend(s, lv != 0.0 && dev_db_greater(at[c.row_vs] / lv, c.threshold));
  }
  *value = trend_rule(s, 0.0, c.short_value, 1.0);
  return s.up || s.down;
}

// The same on the whole matrix (value(row, t) = m[t * rows + row]) and close series.
template <int Family, bool Cross, bool Vol>
__device__ inline bool decide(const DeviceCombo& c, const double* __restrict__ m, int rows,
                              const double* __restrict__ close, long long t, double* value) {
  if (t < c.first_defined) {
    *value = 0.0;
    return true;
  }
  return decide_at<Family, Cross, Vol>(c, m + t * rows, rows, close[t], t, value);
}

// Below this magnitude a float screen decides nothing: a double under ~1.2e-38 rounds to a
// denormal float, off by up to 7e-46 absolute (half its value at the bottom), not 6e-8
// relative. The floor also absorbs such an absolute error scaled by a vol threshold of at
// most kVolScreenMax (1e12 * 7e-46 < 1e-33).
constexpr float kScreenFloor = 1e-30f;

// Single-precision screen of a dead-band comparison (SPEC §4): each float is within 6e-8
// relative of its double (above the floor), so when the floats differ by more than 1e-6 of
// the larger and by more than kScreenFloor the double comparison has the same answer (and
// clears the 1e-10 band); otherwise -1: undecided, compare the doubles. The floor rides in
// the multiply-add: no extra instruction.
__device__ inline int screen_greater(float x, float y) {
  const float scale = fmaf(1e-6f, fmaxf(fabsf(x), fabsf(y)), kScreenFloor);
  const float d = x - y;
  return d > scale ? 1 : (d < -scale ? 0 : -1);
}

// The vol filter's threshold as the float factor of its screen vs > thr * vl (vl > 0: the
// same test as vs / vl > thr without a float division): NaN, so that the screen never
// decides, where thr * vl could carry more than the screen's error budget: a nonzero
// threshold outside [1e-30, 1e12] in magnitude (a denormal float, or one that scales vl's
// absolute error past the floor).
constexpr double kVolScreenMin = 1e-30, kVolScreenMax = 1e12;
__device__ inline float vol_screen_factor(double threshold) {
  const double a = fabs(threshold);
  return threshold == 0.0 || (a >= kVolScreenMin && a <= kVolScreenMax)
             ? static_cast<float>(threshold)
             : __int_as_float(0x7fc00000);
}

// The float32 copy of the indicator matrix (the decisions' first screen) in groups of
// kFloatGroup bars: value(row, t) at float_cell(t, row, rows) = ((t / 4) * rows + row) * 4 +
// t % 4. A combo's row holds 4 consecutive bars in 16 bytes, one 128-bit load in the
// signal-bit path (TileDecider::signals_of_bars), and the lanes of a warp, reading consecutive
// rows, read consecutive groups. Cells of the last group past the bars are 0.
inline constexpr int kFloatGroup = 4;
__host__ __device__ inline long long float_cell(long long t, int row, int rows) {
  return ((t >> 2) * rows + row) * kFloatGroup + (t & (kFloatGroup - 1));
}
// The group of kFloatGroup bars from t (a multiple of kFloatGroup) of a row, as one vector;
// the row's next group is `rows` vectors on.
__device__ inline const float4* float_group(const float* m32, long long t, int row, int rows) {
  return reinterpret_cast<const float4*>(m32) + (t >> 2) * rows + row;
}

// The float inputs of one bar's decision, loaded ahead of use so a thread keeps several
// bars' loads in flight (the loop is otherwise bound by memory latency, not bandwidth).
struct BarInputs {
  float a, b, vs, vl;
};

template <int Family, bool Vol>
__device__ inline BarInputs load_inputs(const DeviceCombo& c, const float* __restrict__ m32,
                                        int rows, long long t) {
  BarInputs in;
  in.a = m32[float_cell(t, c.row_a, rows)];
  in.b = m32[float_cell(t, c.row_b, rows)];
  if constexpr (Vol) {
    in.vs = m32[float_cell(t, c.row_vs, rows)];
    in.vl = m32[float_cell(t, c.row_vl, rows)];
  } else {
    in.vs = in.vl = 0.0f;
  }
  return in;
}

// signals_loaded's float screens alone, with no branch: the signals the floats settle, and
// `unsure` where a comparison is left to signals_loaded (the doubles, or in precision "fast" the
// floats alone). px32 = (float)close[t] (channel_breakout; unused by ma_cross). Where unsure is
// false, up and down are signals_loaded's answers.
struct ScreenedSignals {
  bool up, down, unsure;
};
template <int Family>
__device__ __forceinline__ ScreenedSignals screen_signals(float a, float b, float px32) {
  if constexpr (Family == kMaCross) {
    // screen_greater(a, b) and screen_greater(b, a) at once: b - a is exactly -(a - b).
    const float d = a - b;
    const float scale = fmaf(1e-6f, fmaxf(fabsf(a), fabsf(b)), kScreenFloor);
    const bool up = d > scale, down = d < -scale;
    return {up, down, !(up || down)};
  } else {
    const int u = screen_greater(px32, a), d = screen_greater(b, px32);
    return {u == 1, d == 1, u < 0 || d < 0};
  }
}

// The signals of a defined bar t (at = t * rows) from its float inputs, each comparison
// settled by its float screen where it can be and by the doubles otherwise (so exactly
// decide_at's), or by the floats alone in precision "fast". Before cross entries and the gate.
template <int Family>
__device__ __forceinline__ TrendSignals<bool> signals_loaded(const DeviceCombo& c, float a, float b,
                                                             const double* __restrict__ m,
                                                             const double* __restrict__ close,
                                                             long long at, long long t, bool fast) {
  if constexpr (Family == kMaCross) {
    const ScreenedSignals s = screen_signals<kMaCross>(a, b, 0.0f);
    if (!s.unsure) return {s.up, s.down};
    if (fast) return {a > b, b > a};  // precision "fast": the floats decide alone
    const double fd = m[at + c.row_a], sd = m[at + c.row_b];
    return {dev_db_greater(fd, sd), dev_db_greater(sd, fd)};
  } else {
    const double px = close[t];
    const float px32 = static_cast<float>(px);
    int u = screen_greater(px32, a), d = screen_greater(b, px32);
    if (fast && u < 0) u = px32 > a;
    if (fast && d < 0) d = px32 < b;
    if (u < 0) u = px > m[at + c.row_a];
    if (d < 0) d = px < m[at + c.row_b];
    return {u != 0, d != 0};
  }
}

// vol_open_loaded's float screen alone: 1 open, 0 closed, -1 left to vol_open_loaded.
__device__ __forceinline__ int screen_vol_open(float vs, float vl, float vol_factor) {
  return vl != 0.0f ? screen_greater(vs, vol_factor * vl) : -1;
}

// Whether the vol filter is open at a defined bar t from its float inputs, settled as above;
// vol_factor = vol_screen_factor(c.threshold).
__device__ __forceinline__ bool vol_open_loaded(const DeviceCombo& c, float vs, float vl,
                                                float vol_factor, const double* __restrict__ m,
                                                long long at, bool fast) {
  int o = -1;
  // STD rows are >= 0: for vl > 0, vs / vl > thr iff vs > thr * vl (the errors of vs, thr and
  // vl, 6e-8 relative each, stay well inside the screen's 1e-6).
  if (vl != 0.0f) o = screen_greater(vs, vol_factor * vl);
  if (fast && o < 0) o = vl != 0.0f && vs / vl > static_cast<float>(c.threshold);
  if (o < 0) {
    const double lvd = m[at + c.row_vl];
    o = lvd != 0.0 && dev_db_greater(m[at + c.row_vs] / lvd, c.threshold);
  }
  return o != 0;
}

// decide_at() on preloaded inputs: `cur` for bar t, `prev` for bar t - 1 (cross only):
// signals_loaded and vol_open_loaded composed by decide_at's rule (cross_entries, gate_trend,
// trend_rule).
template <int Family, bool Cross, bool Vol>
__device__ inline bool decide_loaded(const DeviceCombo& c, const BarInputs& cur,
                                     const BarInputs& prev, const double* __restrict__ m, int rows,
                                     const double* __restrict__ close, long long t, bool fast,
                                     double* value) {
  static_assert(!is_level_family(Family), "set-or-hold families only: use next()");
  if (t < c.first_defined) {
    *value = 0.0;
    return true;
  }
  const long long at = t * rows;
  TrendSignals<bool> s = signals_loaded<Family>(c, cur.a, cur.b, m, close, at, t, fast);
  if constexpr (Cross) {
    s = t - 1 >= c.signal_defined
            ? cross_entries(
                  s, signals_loaded<Family>(c, prev.a, prev.b, m, close, at - rows, t - 1, fast),
                  true)
            : TrendSignals<bool>{false, false};
  }
  if constexpr (Vol) {
    if (s.up || s.down)
      s = gate_trend(
          s, vol_open_loaded(c, cur.vs, cur.vl, vol_screen_factor(c.threshold), m, at, fast));
  }
  *value = trend_rule(s, 0.0, c.short_value, 1.0);
  return s.up || s.down;
}

// p_t of a level family (SPEC §5 bollinger, rsi_reversion) from p_{t-1} = held, at bar t's
// column `at`: 0 while undefined, held while the filter is closed, else level_rule.
template <int Family, bool Vol>
__device__ inline double level_next_at(const DeviceCombo& c, const double* __restrict__ at,
                                       double close_t, long long t, double held) {
  if (t < c.first_defined) return 0.0;
  if constexpr (Vol) {
    const double lv = at[c.row_vl];
    if (!(lv != 0.0 && dev_db_greater(at[c.row_vs] / lv, c.threshold))) return held;
  }
  double x, upper, lower, middle;
  if constexpr (Family == kBollinger) {
    // U = M + k*STD, L = M - k*STD with k*STD rounded once, then added (SPEC §4): explicit
    // roundings, since nvcc contracts a * b + c into a fused multiply-add by default. The STD
    // row is already 0 where STD counts as 0, so then U = L = M.
    middle = at[c.row_a];
    const double offset = __dmul_rn(c.k, at[c.row_b]);
    upper = __dadd_rn(middle, offset);
    lower = __dsub_rn(middle, offset);
    x = close_t;
  } else {
    x = at[c.row_a];
    upper = c.hi;
    lower = c.lo;
    middle = kRsiMiddle;
  }
  const LevelSignals<bool> s{dev_db_greater(x, upper), dev_db_greater(lower, x),
                             dev_db_greater(x, middle), dev_db_greater(middle, x)};
  return level_rule<double, bool>(c.fade, s, held, c.short_value, 1.0, 0.0);
}

// p_t from p_{t-1} = held for every family, at bar t's column `at` (the previous bar's column
// is at - rows).
template <int Family, bool Cross, bool Vol>
__device__ inline double next_at(const DeviceCombo& c, const double* __restrict__ at, int rows,
                                 double close_t, long long t, double held) {
  if constexpr (is_level_family(Family)) {
    return level_next_at<Family, Vol>(c, at, close_t, t, held);
  } else {
    double v;
    return decide_at<Family, Cross, Vol>(c, at, rows, close_t, t, &v) ? v : held;
  }
}

// The same on the whole matrix and close series.
template <int Family, bool Cross, bool Vol>
__device__ inline double next(const DeviceCombo& c, const double* __restrict__ m, int rows,
                              const double* __restrict__ close, long long t, double held) {
  if (t < c.first_defined) return 0.0;
  return next_at<Family, Cross, Vol>(c, m + t * rows, rows, close[t], t, held);
}

// The hot-loop form of decide_loaded: positions as ints, inputs passed as floats, the
// doubles read only when the floats cannot settle a comparison. Returns the new position
// (`held` when nothing sets it). `defined`: t >= c.first_defined.
template <int Family, bool Cross, bool Vol>
__device__ inline int decide_int_set_or_hold(const DeviceCombo& c, int short_value,
                                             const BarInputs& cur, const BarInputs& prev,
                                             const double* __restrict__ m, int rows,
                                             const double* __restrict__ close, long long t,
                                             bool defined, bool fast, int held) {
  if (!defined) return 0;
  double v;
  // Settled by the floats in the common case; otherwise the exact path decides.
  if constexpr (Family == 0 && !Vol) {
    const int g = screen_greater(cur.a, cur.b), l = screen_greater(cur.b, cur.a);
    if constexpr (!Cross) {
      if (g >= 0 && l >= 0)
        return trend_rule(TrendSignals<bool>{g != 0, l != 0}, held, short_value, 1);
    } else {
      if (t - 1 >= c.signal_defined) {
        const int gp = screen_greater(prev.a, prev.b), lp = screen_greater(prev.b, prev.a);
        if (g >= 0 && l >= 0 && gp >= 0 && lp >= 0)
          return trend_rule(cross_entries(TrendSignals<bool>{g != 0, l != 0},
                                          TrendSignals<bool>{gp != 0, lp != 0}, true),
                            held, short_value, 1);
      }
    }
  }
  return decide_loaded<Family, Cross, Vol>(c, cur, prev, m, rows, close, t, fast, &v)
             ? static_cast<int>(v)
             : held;
}

// decide_int_set_or_hold for the set-or-hold families, next() for the level families
// (`defined`: t >= c.first_defined, for the former).
template <int Family, bool Cross, bool Vol>
__device__ inline int decide_int(const DeviceCombo& c, int short_value, const BarInputs& cur,
                                 const BarInputs& prev, const double* __restrict__ m, int rows,
                                 const double* __restrict__ close, long long t, bool defined,
                                 bool fast, int held) {
  if constexpr (is_level_family(Family)) {
    // The level rule reads the float64 values directly (no float screen yet): exact in both
    // precisions.
    return static_cast<int>(next<Family, Cross, Vol>(c, m, rows, close, t, held));
  } else {
    return decide_int_set_or_hold<Family, Cross, Vol>(c, short_value, cur, prev, m, rows, close, t,
                                                      defined, fast, held);
  }
}

// The level families' backward composition, bar t's map being step(t, p_{t-1}) -> p_t.
template <typename Step>
__device__ inline double compose_back(long long t, Step step) {
  double image[3] = {-1.0, 0.0, 1.0};  // the composition of bars (t', t] at -1, 0, +1
  for (; t >= 0; --t) {
    double composed[3];
    for (int i = 0; i < 3; ++i) composed[i] = image[static_cast<int>(step(t, i - 1.0)) + 1];
    for (int i = 0; i < 3; ++i) image[i] = composed[i];
    if (image[0] == image[1] && image[1] == image[2]) return image[0];
  }
  return image[1];
}

// p_t by scanning back (p_{-1} = 0): any chunk starts exactly. Set-or-hold families stop at
// the last bar that sets the position. A level family's bar maps p_{t-1} to p_t (level_rule,
// or the identity while the filter is closed); the maps are composed backwards until the
// composition is constant: at an entry, an undefined bar, a close on the middle level, or a
// bar that keeps only longs after one that keeps only shorts (or the mirror).
template <int Family, bool Cross, bool Vol>
__device__ inline double position_at(const DeviceCombo& c, const double* m, int rows,
                                     const double* close, long long t) {
  if constexpr (is_level_family(Family)) {
    return compose_back(t, [&](long long u, double held) {
      return next<Family, Cross, Vol>(c, m, rows, close, u, held);
    });
  } else {
    double v = 0.0;
    for (; t >= 0; --t)
      if (decide<Family, Cross, Vol>(c, m, rows, close, t, &v)) return v;
    return 0.0;
  }
}

}  // namespace wfod::cuda
