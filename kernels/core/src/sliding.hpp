// Sliding-window mean and standard deviation, written once for host and device (SPEC §4
// numerics): compensated sums re-anchored from scratch every kReanchorBars bars (and, for
// the STD, whenever the window mean drifts far from its shift), so no error accumulates.
// Feed consecutive bars t = n-1, n, n+1, ... of one series. The series is a pointer to the
// value of bar `base` (0 unless the owner keeps only a tail), read at absolute bars t.
#pragma once

#include <math.h>

#include "compensated.hpp"
#include "wfod/detail/hd.hpp"

namespace wfod::detail {

struct StateCodec;

inline constexpr long long kSlidingReanchorBars = 256;  // = wfod::kReanchorBars

// The series a window of n bars reads, at absolute bars: x_ is the value of bar base_.
class SeriesWindow {
 public:
  WFOD_HD SeriesWindow(const double* x, long long n) : x_(x), n_(n) {}
  // The series moved (a growing host vector, or a tail whose first kept bar is `base`): same
  // values, new address.
  WFOD_HD void rebind(const double* x, long long base = 0) {
    x_ = x;
    base_ = base;
  }

 protected:
  WFOD_HD double at_bar(long long t) const { return x_[t - base_]; }

  const double* x_;
  long long n_;
  long long base_ = 0;  // bar of x_[0]
};

class SlidingMean : public SeriesWindow {
 public:
  using SeriesWindow::SeriesWindow;
  WFOD_HD static bool reanchors(long long t, long long n) {
    return (t - (n - 1)) % kSlidingReanchorBars == 0;
  }
  // With x_[0..t-1] known and bar t due to re-anchor: sums the window's first n-1 values now
  // (a stream calls this while the device works), so at(t) adds only x_[t]. The additions
  // are the very ones at(t) would make, in the same order: the value is bit-identical.
  WFOD_HD void prepare(long long t) {
    if (t < n_ - 1 || !reanchors(t, n_) || prepared_for_ == t) return;
    pre_ = CompensatedSum{};
    for (long long i = t + 1 - n_; i < t; ++i) pre_.add(at_bar(i));
    prepared_for_ = t;
  }
  WFOD_HD double at(long long t) {
    if (reanchors(t, n_)) {
      if (prepared_for_ == t) {
        sum_ = pre_;
        sum_.add(at_bar(t));
      } else {
        sum_ = CompensatedSum{};
        for (long long i = t + 1 - n_; i <= t; ++i) sum_.add(at_bar(i));
      }
    } else {
      sum_.add(at_bar(t));
      sum_.add(-at_bar(t - n_));
    }
    return sum_.value() / static_cast<double>(n_);
  }

 private:
  friend struct StateCodec;  // checkpoints (state_codec.hpp)

  CompensatedSum sum_, pre_;
  long long prepared_for_ = -1;
};

// Population STD from sums of y = x - shift and y^2: the shift (a recent price) makes y exact
// (Sterbenz) and small, so sum_y2 - sum_y^2 / n does not cancel.
class SlidingStd : public SeriesWindow {
 public:
  using SeriesWindow::SeriesWindow;
  WFOD_HD double at(long long t) {
    const double n = static_cast<double>(n_);
    bool reanchor = t == n_ - 1 || since_anchor_ >= kSlidingReanchorBars;
    if (!reanchor) {
      const double y_in = at_bar(t) - shift_, y_out = at_bar(t - n_) - shift_;
      sy_.add(y_in);
      sy_.add(-y_out);
      syy_.add_product(y_in, y_in);
      syy_.add_product(-y_out, y_out);
      ++since_anchor_;
      const double mean_y = sy_.value() / n;
      const double var = (syy_.value() - sy_.value() * mean_y) / n;
      if (mean_y * mean_y > 64.0 * var) reanchor = true;  // mean 8+ STDs from the shift
    }
    if (reanchor) {
      shift_ = at_bar(t);
      sy_ = CompensatedSum{};
      syy_ = CompensatedSum{};
      for (long long i = t + 1 - n_; i <= t; ++i) {
        const double y = at_bar(i) - shift_;
        sy_.add(y);
        syy_.add_product(y, y);
      }
      since_anchor_ = 0;
    }
    const double var = (syy_.value() - sy_.value() * (sy_.value() / n)) / n;
    return var > 0 ? sqrt(var) : 0.0;
  }

 private:
  friend struct StateCodec;  // checkpoints (state_codec.hpp)

  CompensatedSum sy_, syy_;
  double shift_ = 0;
  long long since_anchor_ = 0;
};

}  // namespace wfod::detail
