// Indicators of SPEC §4, computed for every bar of a series (NaN where undefined).
// Numerics: sliding sums re-anchored from scratch every kReanchorBars bars, so the error
// never accumulates past one block; no global prefix sums of index * price.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod {

enum class IndicatorKind { sma, ema, wma, hma, std, hh, ll, rsi };
std::string_view to_string(IndicatorKind);
IndicatorKind parse_indicator(std::string_view);

inline constexpr int kReanchorBars = 256;

std::vector<double> sma(std::span<const double> x, int n);
std::vector<double> ema(std::span<const double> x, int n);
std::vector<double> wma(std::span<const double> x, int n);
std::vector<double> hma(std::span<const double> x, int n);
std::vector<double> stdev(std::span<const double> x, int n);  // population (divide by n)
// Wilder's RSI(n), defined from bar n (the first with n changes); 50 where G + L = 0.
std::vector<double> rsi(std::span<const double> x, int n);
// Donchian channel of the previous n bars: max(x[t-n..t-1]) / min(y[t-n..t-1]).
std::vector<double> rolling_max_prev(std::span<const double> x, int n);
std::vector<double> rolling_min_prev(std::span<const double> y, int n);

// Bollinger bands of (n, k) (SPEC §4): middle = SMA(n), upper/lower = middle ± k·STD(n)
// (k·STD rounded once, then added), and upper = lower = middle where STD(n) <= delta·SMA(n)
// counts as 0. The values the cpu backend's lanes form.
struct Bands {
  std::vector<double> upper, middle, lower;
};
Bands bollinger_bands(std::span<const double> x, int n, double k);

std::vector<double> moving_average(MaType, std::span<const double> x, int n);
// Any indicator by kind; source selects close or high/low for hh/ll.
std::vector<double> compute_indicator(IndicatorKind, int period, const HistoryView&,
                                      Source source = Source::close);

// SPEC §4 dead band, delta = 1e-10: x > y iff x - y > delta * max(|x|, |y|).
inline constexpr double kDeadBand = 1e-10;
inline bool db_greater(double x, double y) {
  double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  return x - y > kDeadBand * (ax > ay ? ax : ay);
}

}  // namespace wfod
