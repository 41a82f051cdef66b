// Indicators of SPEC §4 advanced one bar at a time: the state behind both the batch series
// (indicators.cpp loops over it) and the streaming backends (which keep it across runs).
// One code path for both is what makes a stream's values bit-identical to a fresh sweep's.
// next() is called for t = 0, 1, 2, ... with the series so far (at least t + 1 values; the
// span may move between calls as the owner's storage grows) and returns the value at t,
// NaN while undefined. O(1) amortised per bar; sliding sums re-anchor every kReanchorBars.
// prepare(x) (x: the bars so far, the next call's bar not yet known) does the part of the
// next bar's re-anchor that does not need that bar, so a stream can take it off the path
// from a bar's arrival to its result; values are unchanged (the same additions, in order).
#pragma once

#include <cstddef>
#include <deque>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "compensated.hpp"
#include "sliding.hpp"

namespace wfod::detail {

inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

class SmaState {
 public:
  explicit SmaState(int n) : n_(n), mean_(nullptr, n) {}
  double next(std::span<const double> x) {
    const long long t = t_++;
    if (t < n_ - 1) return kUndefined;
    mean_.rebind(x.data());
    return mean_.at(t);
  }
  void prepare(std::span<const double> x) {
    mean_.rebind(x.data());
    mean_.prepare(t_);
  }

 private:
  long long n_, t_ = 0;
  SlidingMean mean_;
};

// Seeded with SMA(n) at bar n-1, then SPEC's recursion in double-double (ExactEma).
class EmaState {
 public:
  explicit EmaState(int n) : n_(n), ema_(n, 0.0) {}
  double next(std::span<const double> x) {
    const long long t = t_++;
    if (t < n_ - 1) {
      seed_.add(x[static_cast<size_t>(t)]);
      return kUndefined;
    }
    if (t == n_ - 1) {
      seed_.add(x[static_cast<size_t>(t)]);
      ema_ = ExactEma(static_cast<int>(n_), seed_.value() / static_cast<double>(n_));
      return ema_.value();
    }
    return ema_.step(x[static_cast<size_t>(t)]);
  }
  void prepare(std::span<const double>) {}  // no re-anchor

 private:
  long long n_, t_ = 0;
  CompensatedSum seed_;
  ExactEma ema_;
};

// weighted_t = weighted_{t-1} + n x_t - plain_{t-1}; plain_t = plain_{t-1} + x_t - x_{t-n}.
class WmaState {
 public:
  explicit WmaState(int n) : n_(n), denom_(static_cast<double>(n) * (n + 1.0) / 2.0) {}
  double next(std::span<const double> x) {
    const long long t = t_++;
    if (t < n_ - 1) return kUndefined;
    const size_t p = static_cast<size_t>(n_), ut = static_cast<size_t>(t);
    if ((t - (n_ - 1)) % kSlidingReanchorBars == 0) {
      if (prepared_for_ != t) anchor_prefix(x, t);
      weighted_ = pre_weighted_;
      plain_ = pre_plain_;
      weighted_.add_product(static_cast<double>(n_), x[ut]);
      plain_.add(x[ut]);
    } else {
      weighted_.add_product(static_cast<double>(n_), x[ut]);
      weighted_.add(-plain_.sum);
      weighted_.add(-plain_.comp);
      plain_.add(x[ut]);
      plain_.add(-x[ut - p]);
    }
    return weighted_.value() / denom_;
  }
  void prepare(std::span<const double> x) {
    const long long t = t_;
    if (t >= n_ - 1 && (t - (n_ - 1)) % kSlidingReanchorBars == 0 && prepared_for_ != t)
      anchor_prefix(x, t);
  }

 private:
  // The re-anchor's sums over the window's first n-1 values (k = 1 .. n-1), which bar t
  // itself does not change.
  void anchor_prefix(std::span<const double> x, long long t) {
    const size_t p = static_cast<size_t>(n_), ut = static_cast<size_t>(t);
    pre_weighted_ = {};
    pre_plain_ = {};
    for (size_t k = 1; k < p; ++k) {
      const double v = x[ut - p + k];
      pre_weighted_.add_product(static_cast<double>(k), v);
      pre_plain_.add(v);
    }
    prepared_for_ = t;
  }

  long long n_, t_ = 0;
  double denom_;
  CompensatedSum weighted_, plain_, pre_weighted_, pre_plain_;
  long long prepared_for_ = -1;
};

// Exact integer floor(sqrt(n)): HMA's smoothing period.
inline int isqrt(int n) {
  int r = static_cast<int>(sqrt(static_cast<double>(n)));
  while (r > 0 && static_cast<long long>(r) * r > n) --r;
  while (static_cast<long long>(r + 1) * (r + 1) <= n) ++r;
  return r;
}

// HMA(n) = WMA(floor(sqrt n)) of 2 WMA(floor(n/2)) - WMA(n), the inner series starting at
// bar n-1 (the first bar where both are defined). Keeps that inner series.
class HmaState {
 public:
  HmaState(int n, int half, int root)
      : n_(n), defined_(half >= 1 && root >= 1), half_(half), full_(n), root_(root) {}
  double next(std::span<const double> x) {
    const long long t = t_++;
    if (!defined_) return kUndefined;
    const double h = half_.next(x), f = full_.next(x);
    if (t < n_ - 1) return kUndefined;
    diff_.push_back(2.0 * h - f);
    return root_.next(diff_);
  }
  void prepare(std::span<const double> x) {
    if (!defined_) return;
    half_.prepare(x);
    full_.prepare(x);
    root_.prepare(diff_);
  }

 private:
  long long n_, t_ = 0;
  bool defined_;
  WmaState half_, full_, root_;
  std::vector<double> diff_;
};

class StdState {
 public:
  explicit StdState(int n) : n_(n), sd_(nullptr, n) {}
  double next(std::span<const double> x) {
    const long long t = t_++;
    if (t < n_ - 1) return kUndefined;
    sd_.rebind(x.data());
    return sd_.at(t);
  }
  // Nothing to do ahead: its re-anchor shifts by the new bar's value.
  void prepare(std::span<const double>) {}

 private:
  long long n_, t_ = 0;
  SlidingStd sd_;
};

// Donchian bound of the previous n values (max for upper, min for lower): a monotonic deque
// of indices, exact (no arithmetic).
class ExtremeState {
 public:
  ExtremeState(int n, bool upper) : n_(static_cast<size_t>(n)), upper_(upper) {}
  double next(std::span<const double> x) {
    const size_t t = t_++;
    double out = kUndefined;
    if (t >= n_) {
      while (window_.front() < t - n_) window_.pop_front();
      out = x[window_.front()];
    }
    while (!window_.empty() && !better(x[window_.back()], x[t])) window_.pop_back();
    window_.push_back(t);
    return out;
  }
  void prepare(std::span<const double>) {}  // exact, no sums

 private:
  bool better(double a, double b) const { return upper_ ? a > b : a < b; }
  size_t n_, t_ = 0;
  bool upper_;
  std::deque<size_t> window_;
};

// The vol filter's STD row with SPEC §4's rule applied: STD(n) <= delta * SMA(n) counts as 0.
class VolState {
 public:
  VolState(int n, double dead_band) : sd_(n), mean_(n), dead_band_(dead_band) {}
  double next(std::span<const double> x) {
    const double sd = sd_.next(x), mean = mean_.next(x);
    return sd == sd && sd <= dead_band_ * mean ? 0.0 : sd;  // NaN stays NaN
  }
  void prepare(std::span<const double> x) { mean_.prepare(x); }

 private:
  StdState sd_;
  SmaState mean_;
  double dead_band_;
};

}  // namespace wfod::detail
