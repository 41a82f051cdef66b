// Drift over a long stream: the incremental indicator states a stream keeps
// (kernels/core/src/indicator_state.hpp, through RollingIndicators::append_columns, bar by bar)
// against a fresh recomputation over the window at sampled bars of a 1,000,000-bar series:
// within 1e-12 relative, however long the stream has run (the sliding sums re-anchor every
// 256 bars, so no error accumulates).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/rolling_indicators.hpp"
#include "support/series.hpp"
#include "wfod/indicators.hpp"

namespace wfod {
namespace {

using LD = long double;

LD mean_of(const std::vector<double>& x, size_t t, int n) {
  LD s = 0;
  for (size_t i = t + 1 - static_cast<size_t>(n); i <= t; ++i) s += x[i];
  return s / n;
}

LD wma_of(const std::vector<double>& x, size_t t, int n) {
  LD s = 0;
  for (int k = 1; k <= n; ++k)
    s += static_cast<LD>(k) * x[t - static_cast<size_t>(n) + static_cast<size_t>(k)];
  return s / (static_cast<LD>(n) * (n + 1) / 2);
}

LD std_of(const std::vector<double>& x, size_t t, int n) {
  const LD m = mean_of(x, t, n);
  LD s = 0;
  for (size_t i = t + 1 - static_cast<size_t>(n); i <= t; ++i) s += (x[i] - m) * (x[i] - m);
  return std::sqrt(s / n);
}

TEST(IndicatorDrift, MillionBarStreamStaysWithin1e12OfFreshRecomputation) {
  constexpr size_t kBars = 1'000'000;
  // A long random walk with a level change of 1e4x halfway: the worst case for sliding sums.
  Series s = test::random_walk(kBars, 77, 50.0, 0.01, 0.0);
  for (size_t t = kBars / 2; t < kBars; ++t) {
    s.open[t] *= 1e4;
    s.high[t] *= 1e4;
    s.low[t] *= 1e4;
    s.close[t] *= 1e4;
  }
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5, 50};
  g.slow = {200, 5000};
  g.ma = {MaType::sma, MaType::wma};
  g.vol_short = {20};
  g.vol_long = {1000};
  g.vol_threshold = {1.0};
  detail::RollingIndicators rows(g);
  const size_t n_rows = rows.row_count();
  std::vector<double> column(n_rows);
  const HistoryView h = HistoryView::of(s);
  double worst = 0;
  size_t checked = 0;
  for (size_t t = 0; t < kBars; ++t) {
    rows.append_columns(h.prefix(t + 1), column.data());  // one bar, as a stream does
    if (t < 6000 || t % 997 != 0) continue;
    auto check = [&](size_t row, LD want) {
      const double got = column[row];
      const double rel = static_cast<double>(std::fabs((got - want) / want));
      worst = std::max(worst, rel);
      ASSERT_LE(rel, 1e-12) << "row " << row << " bar " << t << ": " << got << " vs "
                            << static_cast<double>(want);
      ++checked;
    };
    for (int p : {5, 50, 200, 5000}) {
      check(rows.ma(MaType::sma, p).index, mean_of(s.close, t, p));
      check(rows.ma(MaType::wma, p).index, wma_of(s.close, t, p));
    }
    check(rows.vol(20).index, std_of(s.close, t, 20));
    check(rows.vol(1000).index, std_of(s.close, t, 1000));
  }
  EXPECT_GT(checked, 9000u);
  std::printf("[ drift    ] %zu values over %zu bars, worst relative error %.3g\n", checked, kBars,
              worst);
}

}  // namespace
}  // namespace wfod
