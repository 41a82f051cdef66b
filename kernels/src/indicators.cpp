// Indicator series of SPEC §4 for the fast backends. Sliding sums are Neumaier-compensated
// and re-anchored from scratch every kReanchorBars bars (STD also when the window mean
// drifts far from its shift: sliding.hpp, shared with the device), so values stay within
// 1e-13 of the exactly rounded ones.
#include "wfod/indicators.hpp"

#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>

#include "compensated.hpp"
#include "sliding.hpp"

namespace wfod {
static_assert(kReanchorBars == detail::kSlidingReanchorBars, "one re-anchoring schedule");
namespace {

using detail::CompensatedSum;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> undefined(size_t n) { return std::vector<double>(n, kNaN); }

void require_period(int n) {
  if (n < 1) throw std::invalid_argument("indicator period must be >= 1, got " + std::to_string(n));
}

// Exact integer floor(sqrt(n)).
int isqrt(int n) {
  int r = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (r > 0 && static_cast<long long>(r) * r > n) --r;
  while (static_cast<long long>(r + 1) * (r + 1) <= n) ++r;
  return r;
}

}  // namespace

std::vector<double> sma(std::span<const double> x, int n) {
  require_period(n);
  const size_t len = x.size(), p = static_cast<size_t>(n);
  auto out = undefined(len);
  detail::SlidingMean mean(x.data(), n);
  for (size_t t = p - 1; t < len; ++t) out[t] = mean.at(static_cast<long long>(t));
  return out;
}

std::vector<double> ema(std::span<const double> x, int n) {
  require_period(n);
  const size_t len = x.size(), p = static_cast<size_t>(n);
  auto out = undefined(len);
  if (len < p) return out;
  CompensatedSum seed;
  for (size_t i = 0; i < p; ++i) seed.add(x[i]);
  // SPEC's recursion in double-double (ExactEma): exactly rounded values.
  detail::ExactEma e(n, seed.value() / n);
  out[p - 1] = e.value();
  for (size_t t = p; t < len; ++t) {
    out[t] = e.step(x[t]);
  }
  return out;
}

std::vector<double> wma(std::span<const double> x, int n) {
  require_period(n);
  const size_t len = x.size(), p = static_cast<size_t>(n);
  auto out = undefined(len);
  const double denom = static_cast<double>(n) * (n + 1.0) / 2.0;
  // weighted = sum k * x[t-n+k]; plain = sum x[t-n+1..t]. Sliding:
  // weighted_t = weighted_{t-1} + n * x_t - plain_{t-1}; plain_t = plain_{t-1} + x_t - x_{t-n}.
  CompensatedSum weighted, plain;
  for (size_t t = p - 1; t < len; ++t) {
    if ((t - (p - 1)) % kReanchorBars == 0) {
      weighted = {};
      plain = {};
      for (size_t k = 1; k <= p; ++k) {
        const double v = x[t - p + k];
        weighted.add_product(static_cast<double>(k), v);
        plain.add(v);
      }
    } else {
      weighted.add_product(static_cast<double>(n), x[t]);
      weighted.add(-plain.sum);
      weighted.add(-plain.comp);
      plain.add(x[t]);
      plain.add(-x[t - p]);
    }
    out[t] = weighted.value() / denom;
  }
  return out;
}

std::vector<double> hma(std::span<const double> x, int n) {
  require_period(n);
  const size_t len = x.size();
  const int half = n / 2, root = isqrt(n);
  if (half < 1 || root < 1) return undefined(len);
  auto w_half = wma(x, half), w_full = wma(x, n);
  const size_t first = static_cast<size_t>(n) - 1;  // first bar where both are defined
  if (len <= first) return undefined(len);
  std::vector<double> diff(len - first);
  for (size_t t = first; t < len; ++t) diff[t - first] = 2.0 * w_half[t] - w_full[t];
  auto smoothed = wma(diff, root);
  auto out = undefined(len);
  for (size_t i = 0; i < smoothed.size(); ++i) out[first + i] = smoothed[i];
  return out;
}

std::vector<double> stdev(std::span<const double> x, int n) {
  require_period(n);
  const size_t len = x.size(), p = static_cast<size_t>(n);
  auto out = undefined(len);
  detail::SlidingStd sd(x.data(), n);
  for (size_t t = p - 1; t < len; ++t) out[t] = sd.at(static_cast<long long>(t));
  return out;
}

namespace {
// Max (or min, with Less = std::greater) of the previous n values: monotonic deque, O(1)
// amortised per bar and exact (no arithmetic).
template <typename Better>
std::vector<double> rolling_extreme_prev(std::span<const double> x, int n, Better better) {
  require_period(n);
  const size_t len = x.size(), p = static_cast<size_t>(n);
  auto out = undefined(len);
  std::deque<size_t> window;  // indices, values monotone so front is the extreme
  for (size_t t = 0; t < len; ++t) {
    if (t >= p) {
      while (!window.empty() && window.front() < t - p) window.pop_front();
      out[t] = x[window.front()];
    }
    while (!window.empty() && !better(x[window.back()], x[t])) window.pop_back();
    window.push_back(t);
  }
  return out;
}
}  // namespace

std::vector<double> rolling_max_prev(std::span<const double> x, int n) {
  return rolling_extreme_prev(x, n, [](double a, double b) { return a > b; });
}
std::vector<double> rolling_min_prev(std::span<const double> y, int n) {
  return rolling_extreme_prev(y, n, [](double a, double b) { return a < b; });
}

std::vector<double> moving_average(MaType type, std::span<const double> x, int n) {
  switch (type) {
    case MaType::sma:
      return sma(x, n);
    case MaType::ema:
      return ema(x, n);
    case MaType::wma:
      return wma(x, n);
    case MaType::hma:
      return hma(x, n);
  }
  throw std::invalid_argument("unknown moving average type");
}

namespace {
constexpr std::pair<std::string_view, IndicatorKind> kKinds[] = {
    {"sma", IndicatorKind::sma}, {"ema", IndicatorKind::ema}, {"wma", IndicatorKind::wma},
    {"hma", IndicatorKind::hma}, {"std", IndicatorKind::std}, {"hh", IndicatorKind::hh},
    {"ll", IndicatorKind::ll}};
}  // namespace

std::string_view to_string(IndicatorKind k) {
  for (const auto& [name, v] : kKinds)
    if (v == k) return name;
  return "?";
}

IndicatorKind parse_indicator(std::string_view s) {
  for (const auto& [name, v] : kKinds)
    if (name == s) return v;
  throw std::invalid_argument("unknown indicator '" + std::string(s) +
                              "' (expected sma|ema|wma|hma|std|hh|ll)");
}

std::vector<double> compute_indicator(IndicatorKind kind, int period, const HistoryView& h,
                                      Source source) {
  switch (kind) {
    case IndicatorKind::sma:
      return sma(h.close, period);
    case IndicatorKind::ema:
      return ema(h.close, period);
    case IndicatorKind::wma:
      return wma(h.close, period);
    case IndicatorKind::hma:
      return hma(h.close, period);
    case IndicatorKind::std:
      return stdev(h.close, period);
    case IndicatorKind::hh:
      return rolling_max_prev(source == Source::close ? h.close : h.high, period);
    case IndicatorKind::ll:
      return rolling_min_prev(source == Source::close ? h.close : h.low, period);
  }
  throw std::invalid_argument("unknown indicator");
}

}  // namespace wfod
