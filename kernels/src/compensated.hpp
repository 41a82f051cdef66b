// Compensated (Neumaier) summation and error-free products: the building blocks that keep
// sliding sums within a few ulps of the exact value between re-anchors (SPEC §4 numerics).
#pragma once

#include <cmath>

namespace wfod::detail {

struct CompensatedSum {
  double sum = 0, comp = 0;

  void add(double v) {
    const double t = sum + v;
    comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  // a * b added exactly up to the final rounding (TwoProduct via fma).
  void add_product(double a, double b) {
    const double p = a * b;
    add(p);
    comp += std::fma(a, b, -p);
  }
  double value() const { return sum + comp; }
};

}  // namespace wfod::detail
