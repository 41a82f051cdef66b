// cpu_ref indicators (SPEC §4): every bar's value recomputed from its own lookback (no
// sliding sums, no incremental updates) with compensated sums, so it is the exact judge
// of the fast backends' sliding formulations.
#include "ref_indicators.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ref_numeric.hpp"

namespace wfod::ref {
namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// x[t-n+1 .. t], the lookback of a bar-t value; the caller guarantees t >= n-1.
std::span<const double> lookback(std::span<const double> x, size_t t, size_t n) {
  return x.subspan(t + 1 - n, n);
}

bool any_undefined(std::span<const double> x) {
  for (double v : x) {
    if (std::isnan(v)) return true;
  }
  return false;
}

double mean_of(std::span<const double> x) {
  CompensatedSum sum;
  for (double v : x) sum.add(v);
  return sum.value() / static_cast<double>(x.size());
}

// floor(sqrt(n)) in integers: a rounded sqrt could land one off for a perfect square. The
// squares in 64 bits: (r + 1)² overflows int for n near INT_MAX (a rules period may be).
int isqrt(int n) {
  int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (r > 0 && r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  return static_cast<int>(r);
}

void require_period(int n) {
  if (n < 1) throw std::invalid_argument("cpu_ref: indicator period must be >= 1");
}

// The previous n bars' extreme at bar t (x[t-n .. t-1], bar t itself excluded), folded
// oldest first by `keep` (max or min), every bar rescanned; undefined before bar n.
template <typename Keep>
std::vector<double> extreme_before(std::span<const double> x, int n, Keep keep) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  std::vector<double> out(x.size(), kUndefined);
  for (size_t t = len; t < x.size(); ++t) {
    double m = x[t - len];
    for (size_t u = t - len + 1; u < t; ++u) m = keep(m, x[u]);
    out[t] = m;
  }
  return out;
}

}  // namespace

std::vector<double> sma(std::span<const double> x, int n) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  std::vector<double> out(x.size(), kUndefined);
  for (size_t t = len - 1; t < x.size(); ++t) {
    const auto w = lookback(x, t, len);
    if (!any_undefined(w)) out[t] = mean_of(w);
  }
  return out;
}

std::vector<double> ema(std::span<const double> x, int n) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  std::vector<double> out(x.size(), kUndefined);
  if (x.size() < len) return out;
  // Seeded with SMA(n) at bar n-1 counted from the anchor, then the SPEC's recursion
  // e + alpha (c - e) in its algebraically identical weighted form (1 - alpha) e + alpha c,
  // carried in long double: both terms are positive (no cancellation after huge one-bar
  // jumps) and the extra precision keeps the accumulated rounding far under SPEC's 1e-13.
  const long double alpha = 2.0L / (static_cast<long double>(n) + 1.0L);
  const long double keep =
      (static_cast<long double>(n) - 1.0L) / (static_cast<long double>(n) + 1.0L);
  long double e = mean_of(lookback(x, len - 1, len));
  out[len - 1] = static_cast<double>(e);
  for (size_t t = len; t < x.size(); ++t) {
    e = keep * e + alpha * static_cast<long double>(x[t]);
    out[t] = static_cast<double>(e);
  }
  return out;
}

std::vector<double> wma(std::span<const double> x, int n) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  // n(n+1)/2 is an integer well inside double's exact range for any sane period.
  const double weight_total = static_cast<double>(n) * (static_cast<double>(n) + 1.0) / 2.0;
  std::vector<double> out(x.size(), kUndefined);
  for (size_t t = len - 1; t < x.size(); ++t) {
    const auto w = lookback(x, t, len);
    if (any_undefined(w)) continue;  // HMA's inner series is undefined at its start
    CompensatedSum sum;
    for (size_t k = 1; k <= len; ++k) sum.add_product(static_cast<double>(k), w[k - 1]);
    out[t] = sum.value() / weight_total;
  }
  return out;
}

std::vector<double> hma(std::span<const double> x, int n) {
  require_period(n);
  const int half = n / 2;
  std::vector<double> out(x.size(), kUndefined);
  if (half == 0) return out;  // HMA(1): WMA(floor(1/2)) = WMA(0) does not exist
  const std::vector<double> wma_half = wma(x, half);
  const std::vector<double> wma_full = wma(x, n);
  std::vector<double> raw(x.size(), kUndefined);
  for (size_t t = 0; t < x.size(); ++t) {
    // NaN in either input leaves raw undefined; wma() then skips any window touching it.
    raw[t] = 2.0 * wma_half[t] - wma_full[t];
  }
  return wma(raw, isqrt(n));
}

std::vector<double> population_std(std::span<const double> x, int n) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  std::vector<double> out(x.size(), kUndefined);
  for (size_t t = len - 1; t < x.size(); ++t) {
    const auto w = lookback(x, t, len);
    if (any_undefined(w)) continue;
    // Two passes: the mean first, then the squared deviations from it. Never the
    // E[x²] - E[x]² shortcut, which cancels catastrophically on flat prices.
    const double mean = mean_of(w);
    CompensatedSum squares;
    for (double v : w) squares.add_product(v - mean, v - mean);
    out[t] = std::sqrt(squares.value() / static_cast<double>(len));
  }
  return out;
}

std::vector<double> highest_before(std::span<const double> x, int n) {
  return extreme_before(x, n, [](double m, double v) { return std::max(m, v); });
}

std::vector<double> lowest_before(std::span<const double> x, int n) {
  return extreme_before(x, n, [](double m, double v) { return std::min(m, v); });
}

std::vector<double> rsi(std::span<const double> x, int n) {
  require_period(n);
  const auto len = static_cast<size_t>(n);
  std::vector<double> out(x.size(), kUndefined);
  if (x.size() <= len) return out;
  // Changes d_i = c_i - c_{i-1} are exact in double for neighbouring prices (Sterbenz). The
  // seeds are the means of the first n gains and losses; then Wilder's recursion
  // G_t = G_{t-1} + (g_t - G_{t-1}) / n in its identical weighted form ((n-1) G + g) / n,
  // carried in long double like the EMA: both terms are non-negative, so nothing cancels.
  CompensatedSum gains, losses;
  for (size_t i = 1; i <= len; ++i) {
    const double d = x[i] - x[i - 1];
    gains.add(d > 0 ? d : 0.0);
    losses.add(d < 0 ? -d : 0.0);
  }
  const long double period = static_cast<long double>(n);
  const long double keep = (period - 1.0L) / period;
  long double g = static_cast<long double>(gains.value()) / period;
  long double l = static_cast<long double>(losses.value()) / period;
  auto value = [](long double up, long double down) {
    const long double total = up + down;
    return total == 0.0L ? 50.0 : static_cast<double>(100.0L * up / total);
  };
  out[len] = value(g, l);
  for (size_t t = len + 1; t < x.size(); ++t) {
    const double d = x[t] - x[t - 1];
    g = keep * g + static_cast<long double>(d > 0 ? d : 0.0) / period;
    l = keep * l + static_cast<long double>(d < 0 ? -d : 0.0) / period;
    out[t] = value(g, l);
  }
  return out;
}

double band_offset(double sma_value, double std_dev, double k) {
  if (std_counts_as_zero(std_dev, sma_value)) return 0.0;
  // SPEC §4: k·STD rounded once (a plain double product; -ffp-contract=off keeps the
  // following addition unfused).
  return k * std_dev;
}

const std::vector<double>& IndicatorCache::get(IndicatorKind kind, int period, Source source) {
  // Only the Donchian channel reads a source; keying the others on close keeps one entry
  // per distinct series.
  if (kind != IndicatorKind::channel_high && kind != IndicatorKind::channel_low) {
    source = Source::close;
  }
  const auto key = std::make_tuple(kind, period, source);
  auto it = values_.find(key);
  if (it == values_.end()) {
    it = values_.emplace(key, Entry{compute(kind, period, source), 0}).first;
    bytes_ += it->second.values.size() * sizeof(double);
  }
  it->second.last_use = ++uses_;
  return it->second.values;
}

void IndicatorCache::trim() {
  while (bytes_ > capacity_bytes_ && !values_.empty()) {
    auto oldest = values_.begin();
    for (auto it = values_.begin(); it != values_.end(); ++it)
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    bytes_ -= oldest->second.values.size() * sizeof(double);
    values_.erase(oldest);
  }
}

const std::vector<double>& IndicatorCache::moving_average(MaType ma, int period) {
  switch (ma) {
    case MaType::sma:
      return get(IndicatorKind::sma, period);
    case MaType::ema:
      return get(IndicatorKind::ema, period);
    case MaType::wma:
      return get(IndicatorKind::wma, period);
    case MaType::hma:
      return get(IndicatorKind::hma, period);
  }
  throw std::invalid_argument("cpu_ref: unknown moving average type");
}

std::vector<double> IndicatorCache::compute(IndicatorKind kind, int period, Source source) const {
  const auto close = history_.close;
  switch (kind) {
    case IndicatorKind::sma:
      return sma(close, period);
    case IndicatorKind::ema:
      return ema(close, period);
    case IndicatorKind::wma:
      return wma(close, period);
    case IndicatorKind::hma:
      return hma(close, period);
    case IndicatorKind::std:
      return population_std(close, period);
    case IndicatorKind::channel_high:
      return highest_before(source == Source::high_low ? history_.high : close, period);
    case IndicatorKind::channel_low:
      return lowest_before(source == Source::high_low ? history_.low : close, period);
    case IndicatorKind::rsi:
      return rsi(close, period);
  }
  throw std::invalid_argument("cpu_ref: unknown indicator kind");
}

}  // namespace wfod::ref
