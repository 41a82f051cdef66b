// Screens of the fast CSCV walk (docs/spec-10-selection.md §10.6): a float y that stands for
// a half-set's exact objective x, |x - y| <= kBandRel |y| + kBandAbs whenever y is finite
// (x NaN <=> y NaN; an infinite y decides nothing). The walk ranks and counts on screens; the
// exact objective is computed only where a band could change an outcome, so every winner,
// rank and tie is the one exact objectives give. Also: the order keys of screens and the float
// thresholds that turn "band wholly below / above an exact value" into one float compare.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "wfod/detail/rank_math.hpp"

namespace wfod::selection::cscv {

// The objectives the walk screens: the ones finalize computes from additive moments or the
// growth product alone (+ - * / sqrt). The others keep the plain walk.
enum class Screen : int { sharpe, sortino, total_return };

// The band: the screens below err by at most 2^-22 |y| + 2^-100 (see moment_screen), so a
// factor of 16 to spare on both terms; the float rounding of a total return errs by 2^-24 |y|
// or, subnormal, 2^-150.
inline constexpr double kBandRel = 0x1p-18;
inline constexpr double kBandAbs = 0x1p-96;

inline double band_lo(float y) {
  const double d = y;
  return d - (kBandRel * std::fabs(d) + kBandAbs);
}
inline double band_hi(float y) {
  const double d = y;
  return d + (kBandRel * std::fabs(d) + kBandAbs);
}

// The exact objective from a half-set's sums, with lean_objective's operations (cscv_exact.hpp):
// sharpe from (sum, sum_sq), sortino from (sum, down_sq); `bars` the half-set's bar count,
// `annual` sqrt(bars_per_year).
inline double exact_moment_objective(Screen screen, double sum, double sq, double bars,
                                     double annual) {
  const double mean = sum / bars;
  if (screen == Screen::sharpe) {
    const double sd = std::sqrt(std::max(0.0, sq / bars - mean * mean));
    return sd > 0 ? mean / sd * annual : 0.0;
  }
  const double down = std::sqrt(sq / bars);
  return down > 0 ? mean / down * annual : 0.0;
}

// Sharpe and Sortino screens: the same real number as the exact objective written with one
// float square root and one float division, y = (S a) / sqrt(D), S the sum, a = annual,
// D = n Q - S^2 (sharpe; Q the sum of squares) or n Q (sortino; Q the downside sum).
// `ok` when 2^-80 <= nQ <= 2^100 and, for sharpe, K = nQ / D <= 2^20 (so D >= 2^-100 and
// |S| / sqrt(D) <= 2^10; the caller keeps annual <= 2^40, screens_apply), for sortino
// |S a| <= 2^60: every intermediate but S a is a normal float, |y| <= 2^100. Error where ok: D in
// double is within 2uK of its real value (u = 2^-53), the float conversions of D and S a, sqrtf and
// the division add 2^-24 each (sqrt halves D's error): y is within 3.5 * 2^-24 + 2^-31 of the real
// value, plus 2^-100 absolute when S a is below the normal floats (its 2^-150 over sqrt(D) >=
// 2^-50); the exact objective (three divisions, a square root, a product) is within 3.01 uK + 4.5 u
// = 2^-31.3 of it. Together under 2^-22 |y| + 2^-100. Not ok: the caller rounds the exact
// objective to float instead. Branch-free so that loops over it vectorise.
struct MomentScreen {
  float y;
  bool ok;
};
inline MomentScreen moment_screen(Screen screen, double sum, double sq, double bars,
                                  double annual) {
  const double nq = bars * sq, num = sum * annual;
  const bool ok = screen == Screen::sharpe
                      ? (nq - sum * sum >= 0x1p-20 * nq) & (nq >= 0x1p-80) & (nq <= 0x1p100)
                      : (nq >= 0x1p-80) & (nq <= 0x1p100) & (std::fabs(num) <= 0x1p60);
  const double d = screen == Screen::sharpe ? nq - sum * sum : nq;
  return {static_cast<float>(num) / std::sqrt(static_cast<float>(d)), ok};
}
// The same screen without the guard, for participants whose guard holds on every half-set
// (moment_guard_always_holds).
inline float moment_screen_unguarded(Screen screen, double sum, double sq, double bars,
                                     double annual) {
  const double nq = bars * sq;
  const double d = screen == Screen::sharpe ? nq - sum * sum : nq;
  return static_cast<float>(sum * annual) / std::sqrt(static_cast<float>(d));
}

// Whether moment_screen's guard holds on every half-set H of h = S/2 of a participant's S
// blocks (sums sum_b, sq_b), with margins: over every H, nQ_H >= n * (the h smallest sq_b),
// nQ_H <= n * (the h largest), |S_H| <= the h largest |sum_b|; the tests below ask for
// 2^10 more than the guard on each bound (K <= 2 instead of 2^20), far above these sums' and
// products' own rounding, so the guard's computed tests hold too.
inline bool moment_guard_always_holds(Screen screen, const double* sum, const double* sq, int S,
                                      double bars, double annual) {
  double low[20], high[20], mag[20];
  for (int b = 0; b < S; ++b) {
    if (!std::isfinite(sum[b]) || !std::isfinite(sq[b])) return false;  // (and sorts need order)
    low[b] = high[b] = sq[b];
    mag[b] = std::fabs(sum[b]);
  }
  std::sort(low, low + S);
  std::sort(high, high + S, [](double x, double y) { return x > y; });
  std::sort(mag, mag + S, [](double x, double y) { return x > y; });
  double q_low = 0, q_high = 0, s_max = 0;
  for (int i = 0; i < S / 2; ++i) {
    q_low += low[i];
    q_high += high[i];
    s_max += mag[i];
  }
  const double nq_low = bars * q_low, nq_high = bars * q_high;
  const bool range = nq_low >= 0x1p-70 && nq_high <= 0x1p90;  // NaN fails
  if (screen == Screen::sharpe) return range && s_max * s_max <= 0.5 * nq_low;
  return range && s_max * annual <= 0x1p50;
}
// Whether moment_screen's premise on `annual` holds (else every screen is an exact value).
inline bool screens_apply(double annual) { return annual >= 0 && annual <= 0x1p40; }

// The rank order of ranks_before on screens as unsigned keys: 0 = no candidate, 1 = NaN,
// >= 2 for every number (-0 as +0). Ties are the caller's (exact objectives, lower id).
inline uint32_t screen_key(float y) {
  // Branch-free (vectorises): the sign bit selects ~u or u | 2^31.
  const uint32_t u = std::bit_cast<uint32_t>(y) & (y == 0 ? 0u : ~0u);  // -0 as +0
  const uint32_t sign = static_cast<uint32_t>(static_cast<int32_t>(u) >> 31);
  const uint32_t key = u ^ (sign | 0x80000000u);
  return y != y ? 1u : key;
}
inline float screen_of_key(uint32_t key) {
  return std::bit_cast<float>((key >> 31) ? (key & 0x7fffffffu) : ~key);
}

// Finite floats in order as integers (-0 and +0 alike), and back.
inline int32_t float_order(float y) {
  const int32_t b = std::bit_cast<int32_t>(y);
  return b >= 0 ? b : -(b & 0x7fffffff);
}
inline float float_of_order(int32_t o) {
  return std::bit_cast<float>(o >= 0 ? static_cast<uint32_t>(o)
                                     : (static_cast<uint32_t>(-o) | 0x80000000u));
}
inline constexpr int32_t kMaxFiniteOrder = 0x7f7fffff;  // FLT_MAX

// The last finite float at which `pred` (true on a prefix of the finite floats, in order)
// holds; -inf when it holds nowhere. `guess` (any float; NaN for none) starts a galloping
// search: a guess within a few floats of the answer costs a few evaluations of pred.
template <class Pred>
float last_finite_where(Pred pred, float guess) {
  int64_t lo = -kMaxFiniteOrder, hi = kMaxFiniteOrder;  // the answer lies in [lo, hi] or none
  if (guess == guess) {
    const int64_t g = float_order(
        std::clamp(guess, -std::numeric_limits<float>::max(), std::numeric_limits<float>::max()));
    int64_t step = 1;
    if (pred(float_of_order(static_cast<int32_t>(g)))) {
      lo = g;  // gallop up until pred fails
      while (lo < kMaxFiniteOrder) {
        const int64_t next = std::min<int64_t>(kMaxFiniteOrder, lo + step);
        if (!pred(float_of_order(static_cast<int32_t>(next)))) {
          hi = next - 1;
          break;
        }
        lo = next;
        step *= 2;
      }
      if (lo == kMaxFiniteOrder) return float_of_order(kMaxFiniteOrder);
    } else {
      hi = g - 1;  // gallop down until pred holds
      for (;;) {
        const int64_t next = std::max<int64_t>(-kMaxFiniteOrder, hi - step + 1);
        if (pred(float_of_order(static_cast<int32_t>(next)))) {
          lo = next;
          break;
        }
        if (next == -kMaxFiniteOrder) return -std::numeric_limits<float>::infinity();
        hi = next - 1;
        step *= 2;
      }
    }
  } else if (!pred(float_of_order(-kMaxFiniteOrder))) {
    return -std::numeric_limits<float>::infinity();
  }
  while (lo < hi) {  // pred(lo) holds; the answer is in [lo, hi]
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (pred(float_of_order(static_cast<int32_t>(mid)))) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return float_of_order(static_cast<int32_t>(lo));
}
// The first finite float at which `pred` (true on a suffix) holds; +inf when nowhere.
template <class Pred>
float first_finite_where(Pred pred, float guess) {
  const float last_not = last_finite_where([&pred](float y) { return !pred(y); }, guess);
  if (last_not == std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
  if (last_not == -std::numeric_limits<float>::infinity())
    return -std::numeric_limits<float>::max();
  return std::nextafter(last_not, std::numeric_limits<float>::infinity());
}

// The float y whose band end y +- (rel |y| + abs) is t, solved on the side of its sign
// (hi: +, lo: -): the galloping searches' starting guess.
inline float band_inverse(double t, bool hi) {
  const double a = hi ? t - kBandAbs : t + kBandAbs;
  return static_cast<float>(a >= 0 ? a / (hi ? 1 + kBandRel : 1 - kBandRel)
                                   : a / (hi ? 1 - kBandRel : 1 + kBandRel));
}

// Counting against an exact, non-NaN target t: a finite y <= under has its exact objective
// below t, a finite y >= above has it above t; the band's ends increase with y, so each is one
// threshold. Sentinels (-inf, +inf) where no finite float qualifies.
struct CountThresholds {
  float under, above;
};
inline CountThresholds count_thresholds(double t) {
  return {last_finite_where([t](float y) { return band_hi(y) < t; }, band_inverse(t, true)),
          first_finite_where([t](float y) { return band_lo(y) > t; }, band_inverse(t, false))};
}

// The IS winner lies among the participants whose screen is >= the returned float (NaN never
// is): every exact objective whose screen is below it is below the exact objective of the
// best screen `best` (non-NaN). An infinite best: x >= FLT_MAX for +inf (a screen is infinite
// only when the exact value rounds to it), nothing known for -inf.
inline float candidate_floor(float best) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (best == -kInf) return -kInf;
  // A key unit lower (rank_key_tie_floor): a combo tied with the best by rank key (SPEC v1.2
  // §7) and a lower id wins, though its exact objective may be a little below.
  const double floor = ::wfod::detail::rank_key_tie_floor(
      best == kInf ? static_cast<double>(std::numeric_limits<float>::max()) : band_lo(best));
  if (floor <= -static_cast<double>(std::numeric_limits<float>::max())) return -kInf;
  return first_finite_where([floor](float y) { return band_hi(y) >= floor; },
                            band_inverse(floor, true));
}

}  // namespace wfod::selection::cscv
