// Numeric helpers private to the cpu_ref oracle: compensated sums and products and the
// SPEC §4 dead-band comparison. Written apart from the fast backends' helpers on purpose,
// so a bug in theirs cannot pass parity by being shared with ours.
#pragma once

#include <algorithm>
#include <cmath>

namespace wfod::ref {

// SPEC §4: the relative dead band of every comparison of computed values.
inline constexpr double kDeadBand = 1e-10;

// Error of the rounded sum s = fl(a + b), exact whatever the magnitudes (Knuth's TwoSum).
inline double two_sum_error(double a, double b, double s) {
  const double b_virtual = s - a;
  const double a_virtual = s - b_virtual;
  return (a - a_virtual) + (b - b_virtual);
}

// Neumaier-compensated sum: the oracle's sums must be accurate to ~1e-15 relative, far
// tighter than the 1e-13 the SPEC allows other backends, so it is a fair judge of them.
class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    comp_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  // Adds a*b; fma recovers the product's rounding error exactly, so weighted sums (WMA,
  // squared deviations) are as accurate as plain ones.
  void add_product(double a, double b) {
    const double p = a * b;
    add(p);
    comp_ += std::fma(a, b, -p);
  }
  double value() const { return sum_ + comp_; }

 private:
  double sum_ = 0;
  double comp_ = 0;
};

// Running product of (1 + s) kept as the unevaluated sum hi + lo. 1 + s is never rounded
// and every product's error is carried, so total_return = prod - 1 keeps its digits even
// when the product is close to 1 (where a plain product would cancel badly).
class CompensatedGrowth {
 public:
  void times_one_plus(double s) {
    // (hi + lo)(1 + s) = hi + hi*s + lo*(1 + s); hi*s and hi + hi*s are split exactly.
    const double p = hi_ * s;
    const double p_err = std::fma(hi_, s, -p);
    const double t = hi_ + p;
    const double t_err = two_sum_error(hi_, p, t);
    const double tail = lo_ + lo_ * s + p_err + t_err;
    hi_ = t + tail;
    lo_ = two_sum_error(t, tail, hi_);
  }
  double value() const { return hi_ + lo_; }
  // value() - 1 without first rounding value(): hi - 1 is exact near 1 (Sterbenz).
  double value_minus_one() const { return (hi_ - 1.0) + lo_; }

 private:
  double hi_ = 1;
  double lo_ = 0;
};

enum class Order { less, equal, greater };

// SPEC §4: x ≻ y iff x - y > δ·max(|x|, |y|); x ≺ y iff y ≻ x; otherwise equal.
inline Order dead_band_compare(double x, double y) {
  const double band = kDeadBand * std::max(std::abs(x), std::abs(y));
  if (x - y > band) return Order::greater;
  if (y - x > band) return Order::less;
  return Order::equal;
}

// SPEC §4: STD(n)_t <= δ·SMA(n)_t counts as 0 (a flat stretch, not a tiny volatility).
inline bool std_counts_as_zero(double std_value, double sma_value) {
  return std_value <= kDeadBand * sma_value;
}

}  // namespace wfod::ref
