// Compensated (Neumaier) summation and error-free products: the building blocks that keep
// sliding sums within a few ulps of the exact value between re-anchors (SPEC §4 numerics).
// Host and device share it.
#pragma once

#include <math.h>

#include "wfod/detail/hd.hpp"

namespace wfod::detail {

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

}  // namespace wfod::detail
