// Compensated (Neumaier) summation and error-free products: the building blocks that keep
// sliding sums within a few ulps of the exact value between re-anchors (SPEC §4 numerics).
// Host and device share it.
#pragma once

#include <math.h>

#include "wfod/detail/hd.hpp"

namespace wfod::detail {

struct StateCodec;

struct CompensatedSum {
  double sum = 0, comp = 0;

  WFOD_HD void add(double v) {
    const double t = sum + v;
    comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  // a * b added exactly up to the final rounding (TwoProduct via fma).
  WFOD_HD void add_product(double a, double b) {
    const double p = a * b;
    add(p);
    comp += fma(a, b, -p);
  }
  WFOD_HD double value() const { return sum + comp; }
};

// EMA's recursion e + alpha (c - e) carried in double-double (hi + lo), with alpha = 2/(n+1)
// itself in double-double: per step the error is ~1e-32 relative, so the rounded output is
// the exactly rounded EMA even for n in the thousands and after 1e8 one-bar jumps, where
// plain double loses up to ~n * 1e-16 (weighted form) or cancels (literal form).
class ExactEma {
 public:
  WFOD_HD ExactEma(int n, double seed) : hi_(seed), lo_(0) {
    const double m = n + 1.0;
    a_hi_ = 2.0 / m;
    a_lo_ = fma(-a_hi_, m, 2.0) / m;  // 2 - a_hi * m is exact; the residual of alpha
  }
  // Wilder's smoothing (RSI's averages, SPEC §4): the same recursion with alpha = 1/n, seeded
  // with a double-double value (the mean of the first n changes).
  WFOD_HD static ExactEma wilder(int n, double seed_hi, double seed_lo) {
    ExactEma e(n, seed_hi);
    e.lo_ = seed_lo;
    const double m = n;
    e.a_hi_ = 1.0 / m;
    e.a_lo_ = fma(-e.a_hi_, m, 1.0) / m;  // 1 - a_hi * m is exact; the residual of alpha
    return e;
  }
  WFOD_HD double step(double c) {
    // d = c - e, exactly as a pair (TwoSum of c and -hi, then subtract lo).
    double d_hi, d_lo;
    two_sum(c, -hi_, d_hi, d_lo);
    d_lo -= lo_;
    // m = alpha * d in double-double.
    const double m_hi = a_hi_ * d_hi;
    const double m_lo = fma(a_hi_, d_hi, -m_hi) + a_hi_ * d_lo + a_lo_ * d_hi;
    // e += m.
    double s, s_err;
    two_sum(hi_, m_hi, s, s_err);
    const double tail = s_err + lo_ + m_lo;
    hi_ = s + tail;
    lo_ = tail - (hi_ - s);
    return hi_;
  }
  WFOD_HD double value() const { return hi_; }

 private:
  friend struct StateCodec;  // checkpoints (state_codec.hpp)
  WFOD_HD static void two_sum(double a, double b, double& s, double& err) {
    s = a + b;
    const double bb = s - a;
    err = (a - (s - bb)) + (b - bb);
  }
  double hi_, lo_, a_hi_, a_lo_;
};

}  // namespace wfod::detail
