// prod(1 + s_t) carried in double-double, for total returns that keep their digits where the
// product is near 1. Host only (the sweep kernels keep plain products; src/growth_refine.hpp
// says why and where this is used instead). The oracle's CompensatedGrowth
// (cpu_ref/ref_numeric.hpp) does the same arithmetic in its own code, apart on purpose: a bug
// here cannot pass parity by being shared with the reference.
#pragma once

#include <cmath>

namespace wfod::detail {

// The product as the unevaluated sum hi + lo: 1 + s_t is never rounded and every product's
// and sum's rounding error is carried (fma, and Knuth's TwoSum), so hi - 1 + lo keeps its
// digits where a plain running product, rounded at every bar, would cancel.
class ExactGrowth {
 public:
  void times_one_plus(double s) {
    // (hi + lo)(1 + s) = hi + hi*s + lo*(1 + s), with hi*s and hi + hi*s split exactly.
    const double prod = hi_ * s;
    const double prod_err = std::fma(hi_, s, -prod);
    const double head = hi_ + prod;
    const double tail = std::fma(lo_, s, lo_) + (prod_err + sum_error(hi_, prod, head));
    hi_ = head + tail;
    lo_ = sum_error(head, tail, hi_);
  }
  // prod(1 + s_t) - 1: hi - 1 is exact near 1 (Sterbenz), lo is added once.
  double total_return() const { return (hi_ - 1.0) + lo_; }

 private:
  // The rounding error of s = a + b, exactly, whatever the magnitudes.
  static double sum_error(double a, double b, double s) {
    const double b_part = s - a;
    const double a_part = s - b_part;
    return (a - a_part) + (b - b_part);
  }
  double hi_ = 1.0, lo_ = 0.0;
};

}  // namespace wfod::detail
