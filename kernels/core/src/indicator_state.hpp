// Indicators of SPEC §4 advanced one bar at a time: the state behind both the batch series
// (indicators.cpp loops over it) and the streaming backends (which keep it across runs).
// One code path for both is what makes a stream's values bit-identical to a fresh sweep's.
// next() is called for t = 0, 1, 2, ... with the series so far (a SeriesTail ending at t + 1:
// the whole series, or only its last bars, at least lookback() of them; the storage may move
// between calls as the owner's grows) and returns the value at t, NaN while undefined.
// O(1) amortised per bar, O(period) memory; sliding sums re-anchor every kReanchorBars.
// prepare(x) (x: the bars so far, the next call's bar not yet known) does the part of the
// next bar's re-anchor that does not need that bar, so a stream can take it off the path
// from a bar's arrival to its result; values are unchanged (the same additions, in order).
#pragma once

#include <cstddef>
#include <deque>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "compensated.hpp"
#include "sliding.hpp"

namespace wfod::detail {

inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

struct StateCodec;  // checkpoints (state_codec.hpp)

// One input series as the states read it: the values of bars [base, end), addressed by the
// absolute bar number. A span is the whole series (base 0), so batch callers pass theirs.
struct SeriesTail {
  const double* data = nullptr;  // the value of bar `base`
  size_t base = 0, end = 0;
  SeriesTail(const double* d, size_t b, size_t e) : data(d), base(b), end(e) {}
  SeriesTail(std::span<const double> x) : data(x.data()), end(x.size()) {}  // NOLINT: implicit
  double operator[](size_t t) const { return data[t - base]; }
};

// An indicator that is one sliding window of the series (sliding.hpp): SMA(n) over a
// SlidingMean, STD(n) over a SlidingStd; undefined for the first n - 1 bars.
template <typename Window>
class SlidingState {
 public:
  static constexpr bool kMean = std::is_same_v<Window, SlidingMean>;
  static constexpr const char* kName = kMean ? "SMA" : "STD";  // for checkpoint errors

  explicit SlidingState(int n) : n_(n), window_(nullptr, n) {}
  double next(SeriesTail x) {
    const long long t = t_++;
    if (t < n_ - 1) return kUndefined;
    window_.rebind(x.data, static_cast<long long>(x.base));
    return window_.at(t);
  }
  // The mean sums its next re-anchor's first n - 1 values ahead; the STD has nothing to do
  // ahead (its re-anchor shifts by the new bar's value).
  void prepare(SeriesTail x) {
    if constexpr (kMean) {
      window_.rebind(x.data, static_cast<long long>(x.base));
      window_.prepare(t_);
    }
  }

 private:
  friend struct StateCodec;
  long long n_, t_ = 0;
  Window window_;
};
using SmaState = SlidingState<SlidingMean>;
using StdState = SlidingState<SlidingStd>;

// Seeded with SMA(n) at bar n-1, then SPEC's recursion in double-double (ExactEma).
class EmaState {
 public:
  explicit EmaState(int n) : n_(n), ema_(n, 0.0) {}
  double next(SeriesTail x) {
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
  void prepare(SeriesTail) {}  // no re-anchor

 private:
  friend struct StateCodec;
  long long n_, t_ = 0;
  CompensatedSum seed_;
  ExactEma ema_;
};

// weighted_t = weighted_{t-1} + n x_t - plain_{t-1}; plain_t = plain_{t-1} + x_t - x_{t-n}.
class WmaState {
 public:
  explicit WmaState(int n) : n_(n), denom_(static_cast<double>(n) * (n + 1.0) / 2.0) {}
  double next(SeriesTail x) {
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
  int period() const { return static_cast<int>(n_); }
  void prepare(SeriesTail x) {
    const long long t = t_;
    if (t >= n_ - 1 && (t - (n_ - 1)) % kSlidingReanchorBars == 0 && prepared_for_ != t)
      anchor_prefix(x, t);
  }

 private:
  friend struct StateCodec;
  // The re-anchor's sums over the window's first n-1 values (k = 1 .. n-1), which bar t
  // itself does not change.
  void anchor_prefix(SeriesTail x, long long t) {
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
// bar n-1 (the first bar where both are defined). Keeps the inner series' last values only
// (its own WMA reads back `root` of them), dropping older ones in bulk: O(1) amortised.
class HmaState {
 public:
  HmaState(int n, int half, int root)
      : n_(n), defined_(half >= 1 && root >= 1), half_(half), full_(n), root_(root) {}
  double next(SeriesTail x) {
    const long long t = t_++;
    if (!defined_) return kUndefined;
    const double h = half_.next(x), f = full_.next(x);
    if (t < n_ - 1) return kUndefined;
    diff_.push_back(2.0 * h - f);
    const double out = root_.next(diff_tail());
    trim();
    return out;
  }
  void prepare(SeriesTail x) {
    if (!defined_) return;
    half_.prepare(x);
    full_.prepare(x);
    root_.prepare(diff_tail());
  }
  size_t heap_bytes() const { return diff_.capacity() * sizeof(double); }
  // The most heap_bytes() reaches: trim() keeps fewer than 2 (root + 1) + 64 inner values,
  // and a vector grows to at most twice what it holds.
  size_t max_heap_bytes() const {
    return 2 * (2 * (static_cast<size_t>(root_period()) + 1) + 64) * sizeof(double);
  }

 private:
  friend struct StateCodec;
  SeriesTail diff_tail() const { return {diff_.data(), diff_base_, diff_base_ + diff_.size()}; }
  // Keeps the last `keep` inner values (what the root WMA reads: itself and `root` before),
  // erasing the older ones once they outnumber the kept ones.
  void trim() {
    const size_t keep = static_cast<size_t>(root_period()) + 1;
    if (diff_.size() < 2 * keep + 64) return;
    const size_t drop = diff_.size() - keep;
    diff_.erase(diff_.begin(), diff_.begin() + static_cast<ptrdiff_t>(drop));
    diff_base_ += drop;
  }
  int root_period() const { return root_.period(); }

  long long n_, t_ = 0;
  bool defined_;
  WmaState half_, full_, root_;
  std::vector<double> diff_;  // inner values [diff_base_, diff_base_ + size)
  size_t diff_base_ = 0;
};

// Donchian bound of the previous n values (max for upper, min for lower): a monotonic deque
// of indices, exact (no arithmetic).
class ExtremeState {
 public:
  ExtremeState(int n, bool upper) : n_(static_cast<size_t>(n)), upper_(upper) {}
  double next(SeriesTail x) {
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
  void prepare(SeriesTail) {}  // exact, no sums
  size_t heap_bytes() const { return window_.size() * sizeof(size_t); }
  // The most the deque allocates: at most n + 1 indices (those of the last n + 1 bars), in
  // blocks, with a block and its map of slack.
  size_t max_heap_bytes() const { return 2 * (n_ + 1) * sizeof(size_t) + 1024; }

 private:
  friend struct StateCodec;
  bool better(double a, double b) const { return upper_ ? a > b : a < b; }
  size_t n_, t_ = 0;
  bool upper_;
  std::deque<size_t> window_;
};

// Wilder's RSI(n) (SPEC §4): d_i = c_i - c_{i-1}; at bar n the averages G, L are the means
// of the first n gains and losses (compensated sums, divided in double-double), then each
// follows G_t = G_{t-1} + (g_t - G_{t-1}) / n in double-double (ExactEma::wilder), so G and
// L stay within ~1e-30 relative of their exact values on any series; RSI = 100 G / (G + L)
// rounds a few times (~1e-16), and is 50 where G + L = 0. O(1) per bar; reads x[t - 1].
class RsiState {
 public:
  explicit RsiState(int n)
      : n_(n), gain_(ExactEma::wilder(n, 0.0, 0.0)), loss_(ExactEma::wilder(n, 0.0, 0.0)) {}
  double next(SeriesTail x) {
    const long long t = t_++;
    if (t == 0) return kUndefined;
    const size_t ut = static_cast<size_t>(t);
    const double d = x[ut] - x[ut - 1];
    const double g = d > 0 ? d : 0.0, l = d < 0 ? -d : 0.0;
    if (t < n_) {
      gains_.add(g);
      losses_.add(l);
      return kUndefined;
    }
    if (t == n_) {
      gains_.add(g);
      losses_.add(l);
      gain_ = seeded(gains_);
      loss_ = seeded(losses_);
    } else {
      gain_.step(g);
      loss_.step(l);
    }
    const double up = gain_.value(), down = loss_.value();
    const double total = up + down;
    return total == 0.0 ? 50.0 : 100.0 * up / total;
  }
  void prepare(SeriesTail) {}  // a recursion: no re-anchor

 private:
  friend struct StateCodec;
  // ExactEma::wilder seeded with sum / n, the compensated sum divided in double-double.
  ExactEma seeded(const CompensatedSum& sum) const {
    const double m = static_cast<double>(n_);
    const double hi = sum.sum + sum.comp, lo = sum.comp - (hi - sum.sum);  // exact pair
    const double q = hi / m;
    const double q_lo = (fma(-q, m, hi) + lo) / m;  // hi - q m is exact
    const double s = q + q_lo;
    return ExactEma::wilder(static_cast<int>(n_), s, q_lo - (s - q));
  }

  long long n_, t_ = 0;
  CompensatedSum gains_, losses_;
  ExactEma gain_, loss_;
};

// The vol filter's STD row with SPEC §4's rule applied: STD(n) <= delta * SMA(n) counts as 0.
class VolState {
 public:
  VolState(int n, double dead_band) : sd_(n), mean_(n), dead_band_(dead_band) {}
  double next(SeriesTail x) {
    const double sd = sd_.next(x), mean = mean_.next(x);
    return sd == sd && sd <= dead_band_ * mean ? 0.0 : sd;  // NaN stays NaN
  }
  void prepare(SeriesTail x) { mean_.prepare(x); }

 private:
  friend struct StateCodec;
  StdState sd_;
  SmaState mean_;
  double dead_band_;
};

}  // namespace wfod::detail
