// CSCV (docs/spec-10-selection.md §10.4) as the device runs it, written once for host and
// device (WFOD_HD) so the CPU tests run the very algorithm the kernels run:
// - Lean<M>: the Summary fields a split's ranking reads (mask M), joined with the exact
//   operations of combine_hd and scored with those of finalize_hd, so every value is
//   bit-identical to cscv_pbo's (which folds full Summaries);
// - walk_half_sets: every S/2-subset H of the blocks in lexicographic order of its members,
//   left folds shared between neighbouring subsets (prefix tree), each leaf told H's index in
//   increasing-bitmask order (colex rank). OOS of split s is IS of split N-1-s (the complement
//   reverses colex order), so one fold per subset serves both halves;
// - the host aggregation of per-split outcomes (pbo.cpp's, same order and operations).
// Host-includable: no CUDA API here.
#pragma once

#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "wfod/detail/hd.hpp"
#include "wfod/detail/rank_math.hpp"
#include "wfod/detail/summary_math.hpp"
#include "wfod/ranking.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/summary.hpp"

#if defined(__CUDACC__)
#define WFOD_HD_INLINE __host__ __device__ __forceinline__
#else
#define WFOD_HD_INLINE inline
#endif

namespace wfod::selection::lean {

inline constexpr int kMaxBlocks = 20;  // S (pbo.hpp: even, 2..20)
inline constexpr int kMaxHalf = kMaxBlocks / 2;
inline constexpr int kBinomCols = kMaxHalf + 1;  // binom[n * kBinomCols + k], n <= 20, k <= 10

// Summary fields a Lean may carry (bit i of the mask = field i).
enum Field : unsigned {
  kSum,
  kSumSq,
  kDownSq,
  kGrowth,
  kPeak,
  kTrough,
  kDrawdown,
  kHeadRet,
  kTailRet,
  kHeadAbs,
  kTailAbs,
  kWinSum,
  kLossSum,
  kFieldCount
};
constexpr unsigned bit(Field f) { return 1u << f; }
constexpr int popcount(unsigned m) {
  return m == 0 ? 0 : static_cast<int>(m & 1u) + popcount(m >> 1);
}
constexpr bool has(unsigned m, Field f) { return (m & bit(f)) != 0; }

// The fields the objective needs (constraints add kDrawdownFields when they can bind).
constexpr unsigned kDrawdownFields = bit(kGrowth) | bit(kPeak) | bit(kTrough) | bit(kDrawdown);
constexpr unsigned objective_fields(Objective o) {
  switch (o) {
    case Objective::sharpe:
      return bit(kSum) | bit(kSumSq);
    case Objective::sortino:
      return bit(kSum) | bit(kDownSq);
    case Objective::total_return:
      return bit(kGrowth);
    case Objective::profit_factor:
      return bit(kHeadRet) | bit(kTailRet) | bit(kHeadAbs) | bit(kTailAbs) | bit(kWinSum) |
             bit(kLossSum);
    default:
      return 0;  // cagr, calmar: pow() is not bit-identical on the device; not handled here
  }
}
// Objectives the device computes bit-identically to the host (+ - * / sqrt only).
constexpr bool device_exact(Objective o) { return objective_fields(o) != 0; }

template <unsigned M>
struct Lean {
  static constexpr int kDoubles = popcount(M);
  double v[kDoubles > 0 ? kDoubles : 1];
  int32_t closed;  // closed_trades
  int32_t held;    // long_bars + short_bars
  int8_t head_pos, tail_pos;
  bool single_run;

  static constexpr int slot(Field f) { return popcount(M & (bit(f) - 1u)); }
  template <Field F>
  WFOD_HD_INLINE double& f() {
    static_assert(has(M, F), "field not in this Lean");
    return v[slot(F)];
  }
  template <Field F>
  WFOD_HD_INLINE double f() const {
    static_assert(has(M, F), "field not in this Lean");
    return v[slot(F)];
  }
};

template <unsigned M>
WFOD_HD_INLINE Lean<M> lean_of(const Summary& s) {
  Lean<M> l{};
  if constexpr (has(M, kSum)) l.template f<kSum>() = s.sum;
  if constexpr (has(M, kSumSq)) l.template f<kSumSq>() = s.sum_sq;
  if constexpr (has(M, kDownSq)) l.template f<kDownSq>() = s.down_sq;
  if constexpr (has(M, kGrowth)) l.template f<kGrowth>() = s.growth;
  if constexpr (has(M, kPeak)) l.template f<kPeak>() = s.peak;
  if constexpr (has(M, kTrough)) l.template f<kTrough>() = s.trough;
  if constexpr (has(M, kDrawdown)) l.template f<kDrawdown>() = s.drawdown;
  if constexpr (has(M, kHeadRet)) l.template f<kHeadRet>() = s.head_ret;
  if constexpr (has(M, kTailRet)) l.template f<kTailRet>() = s.tail_ret;
  if constexpr (has(M, kHeadAbs)) l.template f<kHeadAbs>() = s.head_abs;
  if constexpr (has(M, kTailAbs)) l.template f<kTailAbs>() = s.tail_abs;
  if constexpr (has(M, kWinSum)) l.template f<kWinSum>() = s.closed_win_sum;
  if constexpr (has(M, kLossSum)) l.template f<kLossSum>() = s.closed_loss_sum;
  l.closed = static_cast<int32_t>(s.closed_trades);
  l.held = static_cast<int32_t>(s.long_bars + s.short_bars);
  l.head_pos = s.head_pos;
  l.tail_pos = s.tail_pos;
  l.single_run = s.single_run;
  return l;
}

// close_trade of summary_math.hpp on the fields carried (the dead band of SPEC v1.2 §6).
template <unsigned M>
WFOD_HD_INLINE void lean_close(Lean<M>& s, double ret, double abs_sum) {
  ++s.closed;
  if constexpr (has(M, kWinSum)) {
    const int outcome = ::wfod::detail::trade_outcome(ret, abs_sum);
    if (outcome > 0) {
      s.template f<kWinSum>() += ret;
    } else if (outcome < 0) {
      s.template f<kLossSum>() += ret;
    }
  }
}

// combine_hd(l, r) restricted to the fields of M, same operations in the same order. Both
// sides are non-empty blocks (bars > 0); the fold starts from the first block itself, which
// is what combine(identity, b) returns.
template <unsigned M>
WFOD_HD_INLINE void lean_join(const Lean<M>& l, const Lean<M>& r, Lean<M>& s) {
  using detail::hd_max;
  using detail::hd_min;
  if constexpr (has(M, kSum)) s.template f<kSum>() = l.template f<kSum>() + r.template f<kSum>();
  if constexpr (has(M, kSumSq))
    s.template f<kSumSq>() = l.template f<kSumSq>() + r.template f<kSumSq>();
  if constexpr (has(M, kDownSq))
    s.template f<kDownSq>() = l.template f<kDownSq>() + r.template f<kDownSq>();
  if constexpr (has(M, kGrowth))
    s.template f<kGrowth>() = l.template f<kGrowth>() * r.template f<kGrowth>();
  if constexpr (has(M, kPeak))
    s.template f<kPeak>() =
        hd_max(l.template f<kPeak>(), l.template f<kGrowth>() * r.template f<kPeak>());
  if constexpr (has(M, kTrough))
    s.template f<kTrough>() =
        hd_min(l.template f<kTrough>(), l.template f<kGrowth>() * r.template f<kTrough>());
  if constexpr (has(M, kDrawdown))
    s.template f<kDrawdown>() =
        hd_max(hd_max(l.template f<kDrawdown>(), r.template f<kDrawdown>()),
               1.0 - l.template f<kGrowth>() * r.template f<kTrough>() / l.template f<kPeak>());
  s.held = l.held + r.held;
  s.closed = l.closed + r.closed;
  if constexpr (has(M, kWinSum)) {
    s.template f<kWinSum>() = l.template f<kWinSum>() + r.template f<kWinSum>();
    s.template f<kLossSum>() = l.template f<kLossSum>() + r.template f<kLossSum>();
  }
  s.head_pos = l.head_pos;
  s.tail_pos = r.tail_pos;
  if (l.tail_pos == r.head_pos) {
    s.single_run = l.single_run && r.single_run;
    double joined = 0, joined_abs = 0;
    if constexpr (has(M, kHeadRet)) {
      joined = l.template f<kTailRet>() + r.template f<kHeadRet>();
      joined_abs = l.template f<kTailAbs>() + r.template f<kHeadAbs>();
      s.template f<kHeadRet>() = l.single_run ? joined : l.template f<kHeadRet>();
      s.template f<kTailRet>() = r.single_run ? joined : r.template f<kTailRet>();
      s.template f<kHeadAbs>() = l.single_run ? joined_abs : l.template f<kHeadAbs>();
      s.template f<kTailAbs>() = r.single_run ? joined_abs : r.template f<kTailAbs>();
    }
    if (!l.single_run && !r.single_run && l.tail_pos != 0) lean_close(s, joined, joined_abs);
  } else {
    s.single_run = false;
    double l_tail = 0, r_head = 0, l_tail_abs = 0, r_head_abs = 0;
    if constexpr (has(M, kHeadRet)) {
      l_tail = l.template f<kTailRet>();
      r_head = r.template f<kHeadRet>();
      l_tail_abs = l.template f<kTailAbs>();
      r_head_abs = r.template f<kHeadAbs>();
      s.template f<kHeadRet>() = l.template f<kHeadRet>();
      s.template f<kTailRet>() = r.template f<kTailRet>();
      s.template f<kHeadAbs>() = l.template f<kHeadAbs>();
      s.template f<kTailAbs>() = r.template f<kTailAbs>();
    }
    if (!l.single_run && l.tail_pos != 0) lean_close(s, l_tail, l_tail_abs);
    if (!r.single_run && r.head_pos != 0) lean_close(s, r_head, r_head_abs);
  }
}

// What finalize_hd needs besides the fields: the split's bar count and sqrt(bars_per_year).
struct Ranking {
  double bars = 0;    // n of every split's halves: S/2 x block_bars
  double annual = 0;  // sqrt(bars_per_year), as finalize_hd computes it
  int objective = 0;  // wfod::Objective
  int64_t min_trades = 1;
  double max_drawdown = 1;
  bool has_min_exposure = false;
  double min_exposure = 0;
};

// The drawdown constraint can bind only below 1 (or NaN, which fails every combo).
inline bool needs_drawdown(const Ranking& k) { return !(k.max_drawdown >= 1.0); }

// Calls f(mask, objective) with both as compile-time constants (std::integral_constant) for a
// ranking whose objective is device_exact(); returns false (f not called) otherwise.
template <class F>
bool dispatch(const Ranking& k, F&& f) {
  const Objective o = static_cast<Objective>(k.objective);
  const bool dd = needs_drawdown(k);
  auto go = [&](auto obj) {
    constexpr unsigned base = objective_fields(static_cast<Objective>(decltype(obj)::value));
    if (dd) {
      f(std::integral_constant<unsigned, base | kDrawdownFields>{}, obj);
    } else {
      f(std::integral_constant<unsigned, base>{}, obj);
    }
  };
  switch (o) {
    case Objective::sharpe:
      go(std::integral_constant<int, static_cast<int>(Objective::sharpe)>{});
      return true;
    case Objective::sortino:
      go(std::integral_constant<int, static_cast<int>(Objective::sortino)>{});
      return true;
    case Objective::total_return:
      go(std::integral_constant<int, static_cast<int>(Objective::total_return)>{});
      return true;
    case Objective::profit_factor:
      go(std::integral_constant<int, static_cast<int>(Objective::profit_factor)>{});
      return true;
    default:
      return false;
  }
}

template <unsigned M>
WFOD_HD_INLINE int64_t lean_trades(const Lean<M>& s) {
  return static_cast<int64_t>(s.closed) + (s.head_pos != 0 ? 1 : 0) +
         (!s.single_run && s.tail_pos != 0 ? 1 : 0);
}

// objective_value(finalize(s)) for the objectives of objective_fields(); the same
// expressions as finalize_hd.
template <unsigned M, int Obj>
WFOD_HD_INLINE double lean_objective(const Lean<M>& s, const Ranking& k) {
  using detail::hd_max;
  const double n = k.bars;
  if constexpr (Obj == static_cast<int>(Objective::sharpe)) {
    const double mean = s.template f<kSum>() / n;
    const double var = hd_max(0.0, s.template f<kSumSq>() / n - mean * mean);
    const double sd = sqrt(var);
    return sd > 0 ? mean / sd * k.annual : 0.0;
  } else if constexpr (Obj == static_cast<int>(Objective::sortino)) {
    const double mean = s.template f<kSum>() / n;
    const double down = sqrt(s.template f<kDownSq>() / n);
    return down > 0 ? mean / down * k.annual : 0.0;
  } else if constexpr (Obj == static_cast<int>(Objective::total_return)) {
    return s.template f<kGrowth>() - 1.0;
  } else {
    static_assert(Obj == static_cast<int>(Objective::profit_factor), "objective not handled");
    // finalize_hd's closing of the open head and tail runs, then profit_factor_of.
    double win_sum = s.template f<kWinSum>(), loss_sum = s.template f<kLossSum>();
    const int8_t open_pos[2] = {s.head_pos, s.single_run ? int8_t{0} : s.tail_pos};
    const double open_ret[2] = {s.template f<kHeadRet>(), s.template f<kTailRet>()};
    const double open_abs[2] = {s.template f<kHeadAbs>(), s.template f<kTailAbs>()};
    for (int i = 0; i < 2; ++i) {
      if (open_pos[i] == 0) continue;
      const int outcome = ::wfod::detail::trade_outcome(open_ret[i], open_abs[i]);
      if (outcome > 0) {
        win_sum += open_ret[i];
      } else if (outcome < 0) {
        loss_sum += open_ret[i];
      }
    }
    return ::wfod::detail::profit_factor_of(win_sum, loss_sum);
  }
}

// passes_constraints(finalize(s)). Without the drawdown fields the drawdown constraint cannot
// bind: CSCV participants keep equity positive in every block, so every drawdown is
// 1 - (positive ratio) <= 1 <= max_drawdown (lean_mask only drops them then).
template <unsigned M>
WFOD_HD_INLINE bool lean_passes(const Lean<M>& s, const Ranking& k) {
  if (lean_trades(s) < k.min_trades) return false;
  if constexpr (has(M, kDrawdown)) {
    if (!(s.template f<kDrawdown>() <= k.max_drawdown)) return false;
  }
  if (k.has_min_exposure) {
    const double exposure = static_cast<double>(s.held) / k.bars;
    if (!(exposure >= k.min_exposure)) return false;
  }
  return true;
}

// Whether lean_passes holds on every S/2-subset H of a participant's blocks, so that a walk
// may skip the check (the device's unchecked walk: less work per leaf, fewer registers).
// Lower bounds over every H, from lean_join:
// - a join keeps both sides' closed trades and counts at least as many trades as either side
//   (a run of one position stays one run or becomes more), so, with h = S/2,
//   trades(H) >= max(sum of the h smallest closed_b, the h-th smallest lean_trades(b));
// - held(H) is exactly the sum of its blocks' held bars: at least the h smallest ones' sum.
// The drawdown constraint has no such bound: a mask that carries it never qualifies.
template <unsigned M, class Block>
WFOD_HD_INLINE bool lean_always_passes(int S, const Block& block, const Ranking& k) {
  if constexpr (has(M, kDrawdown)) {
    return false;
  } else {
    int64_t closed[kMaxBlocks], trades[kMaxBlocks];
    int32_t held[kMaxBlocks];
    for (int c = 0; c < S; ++c) {
      const Lean<M> b = block(c);
      // Insertion into ascending order: S <= 20 values, once per participant.
      int i = c;
      for (; i > 0 && closed[i - 1] > b.closed; --i) closed[i] = closed[i - 1];
      closed[i] = b.closed;
      const int64_t t = lean_trades(b);
      for (i = c; i > 0 && trades[i - 1] > t; --i) trades[i] = trades[i - 1];
      trades[i] = t;
      for (i = c; i > 0 && held[i - 1] > b.held; --i) held[i] = held[i - 1];
      held[i] = b.held;
    }
    const int h = S / 2;
    int64_t closed_low = 0;
    int32_t held_low = 0;  // int32 as the fold adds them
    for (int i = 0; i < h; ++i) {
      closed_low += closed[i];
      held_low += held[i];
    }
    const int64_t trades_low = closed_low > trades[h - 1] ? closed_low : trades[h - 1];
    if (trades_low < k.min_trades) return false;
    if (k.has_min_exposure) {
      const double exposure = static_cast<double>(held_low) / k.bars;  // lean_passes' division
      if (!(exposure >= k.min_exposure)) return false;
    }
    return true;
  }
}

// Rank order of ranks_before (SPEC v1.2 §7's rank key, NaN last) as an unsigned key: equal
// keys for objectives whose rank keys are equal, 0 = no candidate, 1 = NaN. Ties are broken by
// the caller (lower id).
WFOD_HD_INLINE uint64_t rank_key(double x) {
  // detail::rank_key is NaN = INT64_MIN < -inf < numbers < +inf <= INT64_MAX - 1: flipping the
  // sign bit orders it as unsigned from 0 (NaN), and + 1 moves NaN to 1 without overflow.
  return (static_cast<uint64_t>(::wfod::detail::rank_key(x)) ^ (uint64_t{1} << 63)) + 1;
}

// --- screens: what the device walk ranks and counts on (spec-10 §10.6) ----------------------
// A screen y is a float standing for an exact objective x with |x - y| <= rel |y| + abs
// (ScreenBand; x NaN <=> y NaN). Screens decide every comparison whose outcome the band
// cannot change; the device computes the exact objective only for the others (the lanes that
// may hold a split's best, the participants whose band holds the winner's OOS objective), so
// the results are those of exact objectives everywhere.
struct ScreenBand {
  double rel = 0x1p-18;   // screen_objective's error is below 2^-21.2 |y|: 8x to spare
  double abs = 0x1p-126;  // float underflow: below 2^-150
};
// The band's ends in double: exact values lie in [band_lo, band_hi]; NaN for an infinite y.
WFOD_HD_INLINE double band_lo(float y, const ScreenBand& b) {
  const double d = y;
  return d - (b.rel * (d < 0 ? -d : d) + b.abs);
}
WFOD_HD_INLINE double band_hi(float y, const ScreenBand& b) {
  const double d = y;
  return d + (b.rel * (d < 0 ? -d : d) + b.abs);
}

// Float thresholds that decide a comparison with an exact t from a finite screen y alone:
// y < below  =>  band_hi(y) < t (the exact objective is below t);
// y > above  =>  band_lo(y) > t (it is above t). Between them the exact value decides.
// Both ends of a band are increasing in y, so each threshold is the last float on its side;
// found from the band's inverse and moved by whole floats until the test holds.
struct ScreenThresholds {
  float below, above;
};
WFOD_HD_INLINE float next_float(float y, float toward) {
#if defined(__CUDA_ARCH__)
  return nextafterf(y, toward);
#else
  return std::nextafter(y, toward);
#endif
}
WFOD_HD_INLINE ScreenThresholds screen_thresholds(double t, const ScreenBand& b) {
  const float inf = std::numeric_limits<float>::infinity();
  if (t != t) return {-inf, -inf};  // NaN target: every number is above it (no count)
  // band_hi(y) = y + rel |y| + abs = t, solved on the side of y's sign; then step.
  const double hi_inverse = t - b.abs >= 0 ? (t - b.abs) / (1 + b.rel) : (t - b.abs) / (1 - b.rel);
  float below = static_cast<float>(hi_inverse);
  while (below > -inf && !(band_hi(below, b) < t)) below = next_float(below, -inf);
  while (below < inf) {
    const float up = next_float(below, inf);
    if (!(band_hi(up, b) < t)) break;
    below = up;
  }
  // band_lo(y) = y - rel |y| - abs = t.
  const double lo_inverse = t + b.abs >= 0 ? (t + b.abs) / (1 - b.rel) : (t + b.abs) / (1 + b.rel);
  float above = static_cast<float>(lo_inverse);
  while (above < inf && !(band_lo(above, b) > t)) above = next_float(above, inf);
  while (above > -inf) {
    const float down = next_float(above, -inf);
    if (!(band_lo(down, b) > t)) break;
    above = down;
  }
  return {below, above};
}

// The walk's screen of a leaf. Sharpe: the host computes mean / sd * annual with three
// divisions and a square root; the same real number is S / sqrt(nQ - S^2) * annual (S, Q the
// sums, n the bars), here with one float reciprocal square root. Error (relative to the real
// value): nQ - S^2 in double is within 2u K of it (u = 2^-53, K = nQ / (nQ - S^2), at most
// 2^20 here), the float conversion 2^-24, rsqrtf 2 ulp (2^-22), the products and the final
// rounding 2^-24 + 2u; the host's own result is within 3.01 u K + 4.5 u of the real value.
// Total under 2^-21.2 |y|. Outside the guard (strong cancellation, D out of float range) the
// exact objective is rounded to float (error 2^-24 |y|). Other objectives: the exact value.
template <unsigned M, int Obj>
WFOD_HD_INLINE float screen_objective(const Lean<M>& s, const Ranking& k) {
  if constexpr (Obj == static_cast<int>(Objective::sharpe)) {
    const double S = s.template f<kSum>(), Q = s.template f<kSumSq>();
    const double nQ = k.bars * Q;
    const double D = nQ - S * S;
    if (D > 0x1p-100 && D < 0x1p100 && nQ <= 0x1p20 * D) {
#if defined(__CUDA_ARCH__)
      const float r = rsqrtf(static_cast<float>(D));
#else
      const float r = 1.0f / std::sqrt(static_cast<float>(D));
#endif
      return static_cast<float>(S * static_cast<double>(r) * k.annual);
    }
  }
  return static_cast<float>(lean_objective<M, Obj>(s, k));
}

// rank_key's order on screens: 1 for NaN, 0 for none, -0 as +0; >= 2 for every number.
WFOD_HD_INLINE uint32_t screen_key(float y) {
  if (y != y) return 1;
  if (y == 0) y = 0.0f;
  uint32_t u;
#if defined(__CUDA_ARCH__)
  u = __float_as_uint(y);
#else
  std::memcpy(&u, &y, sizeof u);
#endif
  return (u >> 31) ? ~u : (u | 0x80000000u);  // -inf: 0x007fffff
}
// The screen a key >= 2 stands for (+0 for zero).
WFOD_HD_INLINE float screen_of_key(uint32_t key) {
  const uint32_t u = (key >> 31) ? (key & 0x7fffffffu) : ~key;
  float y;
#if defined(__CUDA_ARCH__)
  y = __uint_as_float(u);
#else
  std::memcpy(&y, &u, sizeof u);
#endif
  return y;
}

// pbo.cpp's OOS order: NaN below every number and equal to NaN.
WFOD_HD_INLINE bool below(double a, double b) {
  if (a != a || b != b) return a != a && b == b;
  return a < b;
}
WFOD_HD_INLINE bool same(double a, double b) { return (a != a && b != b) || a == b; }

// Binomials C(n, k), n <= kMaxBlocks, k <= kMaxHalf, as a flat table (rank arithmetic).
inline std::vector<uint32_t> binomial_table() {
  std::vector<uint32_t> t((kMaxBlocks + 1) * kBinomCols, 0);
  for (int n = 0; n <= kMaxBlocks; ++n)
    for (int k = 0; k <= kMaxHalf && k <= n; ++k)
      t[n * kBinomCols + k] =
          (k == 0 || k == n) ? 1u : t[(n - 1) * kBinomCols + k - 1] + t[(n - 1) * kBinomCols + k];
  return t;
}

// Recursion level I of walk_half_sets: member I of the subset ranges over [start, S - h + I];
// `fold` joins members 0..I-1, `rank` sums C(c_j, j + 1) over them. Templated on the level so
// every level's fold lives in its own registers on the device (no local-memory stack). H > 0
// fixes h = H and S = 2H at compile time (the leaf exists only at the last level: less code,
// fewer live registers); H = 0 takes them at run time.
template <int I, int H, unsigned M, class Block, class Leaf>
WFOD_HD_INLINE void walk_level(int S, int h, const Block& block, const Lean<M>& fold, int start,
                               uint32_t rank, const uint32_t* binom, Leaf& leaf) {
  if constexpr (I < (H > 0 ? H : kMaxHalf)) {
    const int last = H > 0 ? H + I : S - h + I;
    for (int c = start; c <= last; ++c) {
      Lean<M> next;
      if constexpr (I == 0) {
        next = block(c);
      } else {
        lean_join(fold, block(c), next);
      }
      const uint32_t r = rank + binom[c * kBinomCols + I + 1];
      if constexpr (H > 0) {
        if constexpr (I + 1 == H) {
          leaf(r, next);
        } else {
          walk_level<I + 1, H>(S, h, block, next, c + 1, r, binom, leaf);
        }
      } else if (I + 1 == h) {
        leaf(r, next);
      } else {
        walk_level<I + 1, H>(S, h, block, next, c + 1, r, binom, leaf);
      }
    }
  }
}

// Every h-subset (h = S / 2) of blocks 0..S-1: leaf(split, fold) with the split's index in
// increasing-bitmask order and the left fold, in time order, of its blocks. block(c) returns
// block c's Lean. H > 0: S must be 2H (walk_level).
template <unsigned M, int H = 0, class Block, class Leaf>
WFOD_HD_INLINE void walk_half_sets(int S, const Block& block, const uint32_t* binom, Leaf& leaf) {
  const Lean<M> none{};
  walk_level<0, H>(S, S / 2, block, none, 0, 0u, binom, leaf);
}

// The left fold of the blocks whose bits are set in `mask`, in time order (the target pass:
// one combo, one split).
template <unsigned M, class Block>
WFOD_HD_INLINE Lean<M> fold_mask(uint32_t mask, int S, const Block& block) {
  Lean<M> acc{};
  bool any = false;
  for (int c = 0; c < S; ++c) {
    if (!((mask >> c) & 1u)) continue;
    if (!any) {
      acc = block(c);
      any = true;
    } else {
      Lean<M> next;
      lean_join(acc, block(c), next);
      acc = next;
    }
  }
  return acc;
}

// --- host side -------------------------------------------------------------------------

// One split's outcome: winner (participant index, or -1) and the counts of its OOS rank.
struct SplitOutcome {
  int64_t winner = -1;
  double is_obj = 0, oos_obj = 0;
  uint64_t under = 0, ties = 0;
};

// The split masks in increasing bitmask order (index = split).
inline std::vector<uint32_t> split_masks(size_t blocks) {
  std::vector<uint32_t> masks;
  for (uint32_t m = 0; m < (1u << blocks); ++m)
    if (static_cast<size_t>(__builtin_popcount(m)) == blocks / 2) masks.push_back(m);
  return masks;
}

// PboResult from the per-split outcomes through finish_pbo, the host's own aggregation, so
// the result is bit-identical to cscv_pbo's. `r` arrives with blocks, splits, combos and
// excluded_nonpositive set.
inline void aggregate(const std::vector<SplitOutcome>& outcome, uint64_t n, size_t hist_bins,
                      PboResult& r) {
  std::vector<CscvSplit> splits(outcome.size());
  for (size_t s = 0; s < outcome.size(); ++s) {
    const SplitOutcome& o = outcome[s];
    splits[s] = {o.winner >= 0, o.is_obj, o.oos_obj, o.under, o.ties};
  }
  finish_pbo(splits, n, hist_bins, r);
}

}  // namespace wfod::selection::lean
