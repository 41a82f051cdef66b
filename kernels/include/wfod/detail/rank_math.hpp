// SPEC §7's ranking arithmetic written once for the host (ranking.cpp) and the CUDA sweep and
// stream kernels (cuda/rank_device.cuh): which metric is the objective, the constraints, and
// the order of two candidates (higher rank key first, NaN last, ties by the lower id).
#pragma once

#include <math.h>

#include <cstdint>

#include "wfod/detail/hd.hpp"
#include "wfod/metrics.hpp"
#include "wfod/ranking.hpp"

namespace wfod::detail {

WFOD_HD inline double objective_of(const Metrics& m, Objective o) {
  switch (o) {
    case Objective::sharpe:
      return m.sharpe;
    case Objective::sortino:
      return m.sortino;
    case Objective::calmar:
      return m.calmar;
    case Objective::total_return:
      return m.total_return;
    case Objective::cagr:
      return m.cagr;
    case Objective::profit_factor:
      return m.profit_factor;
  }
  return 0;
}

// The constraints a combo fails, as kFails* bits, with `min_exposure` absent when
// !has_min_exposure. NaN fails a bound.
inline constexpr unsigned kFailsMinTrades = 1, kFailsMaxDrawdown = 2, kFailsMinExposure = 4;
WFOD_HD inline unsigned failed_limits(const Metrics& m, int64_t min_trades, double max_drawdown,
                                      bool has_min_exposure, double min_exposure) {
  unsigned failed = 0;
  if (m.trades < min_trades) failed |= kFailsMinTrades;
  if (!(m.max_drawdown <= max_drawdown)) failed |= kFailsMaxDrawdown;
  if (has_min_exposure && !(m.exposure >= min_exposure)) failed |= kFailsMinExposure;
  return failed;
}

WFOD_HD inline bool within_limits(const Metrics& m, int64_t min_trades, double max_drawdown,
                                  bool has_min_exposure, double min_exposure) {
  return failed_limits(m, min_trades, max_drawdown, has_min_exposure, min_exposure) == 0;
}

// SPEC v1.2 §7's rank key of an objective: its magnitude rounded to 8 significant decimal
// digits (half to even), sign kept, as one ordered integer: sign * ((e + 13) * 1e8 + M) for
// |x| = M * 10^(e-7), 1e7 <= M < 1e8 (e >= -12, since |x| < 1e-12 is key 0). +inf ranks above
// every number, -inf below, NaN below -inf. Written once for host and device: each step is a
// correctly rounded IEEE operation on exact powers of ten (up to 1e22; larger magnitudes divide
// by 1e22 first, in the same steps everywhere), and log10 only guesses the decade, which is then
// corrected from the scaled value, so every backend computes the same key from the same double.
inline constexpr int64_t kRankKeyNaN = INT64_MIN, kRankKeyMinusInf = INT64_MIN + 1,
                         kRankKeyPlusInf = INT64_MAX - 1;  // room for an unsigned + 1 (lean)
inline constexpr double kRankKeyZero = 1e-12;

// 10^k for 0 <= k <= 22, exact (every partial product is a power of ten below 2^53 * 2^k).
WFOD_HD inline double exact_pow10(int k) {
  double p = 1.0, base = 10.0;
  for (; k > 0; k >>= 1, base *= base)
    if (k & 1) p *= base;
  return p;
}

// ax * 10^k for positive ax, for the k rank_key asks (k >= -330, k <= 22).
WFOD_HD inline double scale_pow10(double ax, int k) {
  if (k >= 0) return ax * exact_pow10(k);
  int q = -k;
  for (; q > 22; q -= 22) ax /= 1e22;
  return ax / exact_pow10(q);
}

// m = scale_pow10(ax, k) rounded to an integer, half to even, as the exact value ax·10^k
// rounds: m itself is within half an ulp of it, so only where m is near a half can the two
// differ (the double nearest 25.8267805 is above it, and its product with 10^6 rounds to the
// half exactly: rint would give ...780, the exact decimal ...781). There the sign of
// ax·10^k - h, h the half, comes from the product's or the quotient's exact error (fma), for
// |k| <= 22 where 10^|k| is exact; beyond (magnitudes over 1e29) m is rounded as it is.
WFOD_HD inline double round_scaled_half_even(double ax, int k, double m) {
  const double n = floor(m), h = n + 0.5;
  if (fabs(m - h) > 1e-6 || k < -22) return rint(m);
  double side;  // the sign of the exact ax·10^k - h
  if (k >= 0) {
    const double p = exact_pow10(k);
    side = (m - h) + fma(ax, p, -m);  // m - h exact (Sterbenz), the product's error exact
  } else {
    const double d = exact_pow10(-k);
    side = fma(m - h, d, fma(-m, d, ax));  // (m - h)·d + the division's exact remainder
  }
  if (side > 0) return n + 1;
  if (side < 0) return n;
  return fmod(n, 2.0) == 0 ? n : n + 1;  // an exact half: the even one
}

WFOD_HD inline int64_t rank_key(double x) {
  if (x != x) return kRankKeyNaN;
  const double ax = fabs(x);
  if (ax > 1.7976931348623157e308) return x > 0 ? kRankKeyPlusInf : kRankKeyMinusInf;
  if (!(ax >= kRankKeyZero)) return 0;
  int e = static_cast<int>(floor(log10(ax)));
  double m = scale_pow10(ax, 7 - e);
  for (int fix = 0; fix < 3 && (m >= 1e8 || m < 1e7); ++fix) {
    e += m >= 1e8 ? 1 : -1;
    m = scale_pow10(ax, 7 - e);
  }
  double digits = round_scaled_half_even(ax, 7 - e, m);
  if (digits >= 1e8) {  // 99,999,999.5 and up: the next decade's 10,000,000
    digits = 1e7;
    ++e;
  }
  const int64_t magnitude = static_cast<int64_t>(e + 13) * 100000000 + static_cast<int64_t>(digits);
  return x < 0 ? -magnitude : magnitude;
}

// Whether a's rank key exceeds b's. Rounding to 8 digits is monotone, so two objectives
// further apart than a key unit (at most 1e-7 of the larger magnitude) compare as their raw
// values do; only near ties compute keys.
WFOD_HD inline int compare_rank_keys(double a, double b) {
  const double ma = fabs(a), mb = fabs(b), big = ma < mb ? mb : ma;
  if (big >= kRankKeyZero && big <= 1.7976931348623157e308 && fabs(a - b) > 2e-7 * big)
    return a > b ? 1 : -1;
  const int64_t ka = rank_key(a), kb = rank_key(b);
  return ka == kb ? 0 : ka > kb ? 1 : -1;
}

// A value below which no objective can share a rank key with any value >= x: keys of 8
// significant digits tie values at most a key unit (1e-7 of the magnitude) apart, and key 0
// holds (-1e-12, 1e-12). Screens that pass over combos whose objective is below a bound use it
// so that a combo tied with the bound's by key (and with a lower id) is still looked at.
WFOD_HD inline double rank_key_tie_floor(double x) {
  return x - (2e-7 * fabs(x) + 2 * kRankKeyZero);
}
// Its mirror: no objective above it shares a rank key with any value <= x.
WFOD_HD inline double rank_key_tie_ceiling(double x) {
  return x + (2e-7 * fabs(x) + 2 * kRankKeyZero);
}

// SPEC §7 order: higher rank key first (NaN last), equal keys by the lower id.
WFOD_HD inline bool ranks_before(double obj_a, uint64_t id_a, double obj_b, uint64_t id_b) {
  const int c = compare_rank_keys(obj_a, obj_b);
  return c != 0 ? c > 0 : id_a < id_b;
}

}  // namespace wfod::detail
