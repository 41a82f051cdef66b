// Exact total returns (wfod/detail/exact_growth.hpp, src/growth_refine.hpp): a product near 1
// against its closed form, where a plain running product loses the digits; the growth metrics
// made from it; the reported top-K refined and re-sorted; SequentialMetrics; and cpu against
// cpu_ref on the real minute bars where cpu's cagr and calmar used to miss SPEC §9's 1e-9.
#include "src/growth_refine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/detail/exact_growth.hpp"
#include "wfod/summary.hpp"

namespace wfod {
namespace {

// Returns +a_i, -a_i for a_i = k_i * 2^-20 (k_i = 1, 2, 3, ...): each pair multiplies the
// equity by 1 - a_i^2 exactly, so prod - 1 = -S1 + (S1^2 - S4) / 2 - ..., S1 = sum a_i^2 and
// S4 = sum a_i^4, both exact doubles here; the third-order term is ~1e-17 of the result.
struct PairedReturns {
  std::vector<double> s;
  double expected = 0;
};

PairedReturns paired_returns(int pairs) {
  PairedReturns r;
  double s1 = 0, s4 = 0;
  for (int i = 0; i < pairs; ++i) {
    const double a = std::ldexp(static_cast<double>(1 + i % 3), -20);
    r.s.push_back(a);
    r.s.push_back(-a);
    s1 += a * a;
    s4 += a * a * a * a;
  }
  r.expected = -s1 + (s1 * s1 - s4) / 2;
  return r;
}

TEST(ExactGrowth, KeepsTheDigitsOfAProductNearOne) {
  const PairedReturns r = paired_returns(2000);
  detail::ExactGrowth g;
  double plain = 1.0;
  for (double s : r.s) {
    g.times_one_plus(s);
    plain *= 1.0 + s;
  }
  EXPECT_NEAR(g.total_return(), r.expected, 1e-13 * std::abs(r.expected));
  EXPECT_EQ(detail::exact_total_return(r.s), g.total_return());
  // The case has teeth: the plain product's total return is far outside SPEC §9's 1e-9.
  EXPECT_GT(std::abs((plain - 1.0) - r.expected), 1e-9 * std::abs(r.expected));
}

TEST(ExactGrowth, AgreesWithThePlainProductAwayFromOne) {
  const std::vector<double> s = {0.01, -0.02, 0.03, 0.015, -0.005};
  double plain = 1.0;
  for (double v : s) plain *= 1.0 + v;
  EXPECT_NEAR(detail::exact_total_return(s), plain - 1.0, 1e-15);
  EXPECT_EQ(detail::exact_total_return({}), 0.0);
}

TEST(SetTotalReturn, GrowthMetricsFollowFromTheTotalReturn) {
  Metrics m;
  m.bars = 500;
  m.max_drawdown = 0.1;
  detail::set_total_return(m, 0.2, 252);
  EXPECT_EQ(m.total_return, 0.2);
  EXPECT_NEAR(m.cagr, std::pow(1.2, 252.0 / 500) - 1, 1e-15);
  EXPECT_DOUBLE_EQ(m.calmar, m.cagr / 0.1);
  detail::set_total_return(m, -1.0, 252);  // equity to zero: cagr -1 (SPEC §6)
  EXPECT_EQ(m.cagr, -1.0);
  m.max_drawdown = 0;
  detail::set_total_return(m, 0.05, 252);
  EXPECT_EQ(m.calmar, 0.0);
  Metrics empty;
  detail::set_total_return(empty, 0.3, 252);
  EXPECT_EQ(empty.total_return, 0.0);
}

TEST(SequentialMetrics, TotalReturnIsExactNearOne) {
  const PairedReturns r = paired_returns(2000);
  SequentialMetrics seq;
  for (double s : r.s) seq.add(BarSegments{1, 1, 0.0, s});
  const Metrics m = seq.finish(252);
  EXPECT_NEAR(m.total_return, r.expected, 1e-13 * std::abs(r.expected));
  EXPECT_NEAR(m.cagr, std::expm1(252.0 / 4000 * std::log1p(r.expected)), 1e-20);
}

Ranked ranked(uint64_t id, double total_return) {
  Ranked r;
  r.combo.id = id;
  r.metrics.bars = 1'000'000;  // long enough that a plain product may not suffice
  r.metrics.total_return = total_return;
  r.metrics.max_drawdown = 0.01;
  r.objective = total_return;
  return r;
}

TEST(RefineGrowth, ReSortsByTheRefinedObjectiveWithTiesByTheLowerId) {
  // Returns whose exact total returns put id 7 first and ids 3 and 5 level.
  const auto returns_of = [](const Combo& c) {
    if (c.id == 7) return std::vector<double>{0.02};
    return std::vector<double>{0.01};
  };
  RankSpec rank;
  rank.objective = Objective::total_return;
  std::vector<Ranked> top = {ranked(5, 0.03), ranked(3, 0.02), ranked(7, 0.01)};
  detail::refine_growth(top, rank, 252, returns_of);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].combo.id, 7u);
  EXPECT_EQ(top[1].combo.id, 3u);
  EXPECT_EQ(top[2].combo.id, 5u);
  EXPECT_EQ(top[0].objective, 0.02);
  // Another objective keeps the list's order; the growth metrics are refined all the same.
  rank.objective = Objective::sharpe;
  std::vector<Ranked> by_sharpe = {ranked(5, 0.03), ranked(3, 0.02), ranked(7, 0.01)};
  detail::refine_growth(by_sharpe, rank, 252, returns_of);
  EXPECT_EQ(by_sharpe[0].combo.id, 5u);
  EXPECT_EQ(by_sharpe[0].metrics.total_return, 0.01);
  EXPECT_EQ(by_sharpe[0].objective, 0.03);
}

TEST(PlainGrowthSuffices, OnlyWhereTheProductsRoundingCannotMatter) {
  Metrics daily;  // ten years of days, a 40% return
  daily.bars = 2520;
  daily.total_return = 0.4;
  daily.cagr = std::pow(1.4, 0.1) - 1;
  daily.max_drawdown = 0.2;
  daily.calmar = daily.cagr / 0.2;
  EXPECT_TRUE(detail::plain_growth_suffices(daily, 252));
  // The oracle's minute case: 300 bars, a return of -8e-7, annualised by 362,880 / 300.
  Metrics minute;
  minute.bars = 300;
  minute.total_return = -8.08e-7;
  minute.cagr = -9.77e-4;
  minute.max_drawdown = 1.9e-3;
  minute.calmar = minute.cagr / minute.max_drawdown;
  EXPECT_FALSE(detail::plain_growth_suffices(minute, 362880));
  EXPECT_TRUE(detail::plain_growth_suffices(minute, 1));  // barely annualised: it suffices
  Metrics zero = daily;  // a total return of nearly nothing over many bars
  zero.total_return = 1e-12;
  zero.cagr = 1e-13;
  zero.calmar = zero.cagr / 0.2;
  EXPECT_FALSE(detail::plain_growth_suffices(zero, 252));
  Metrics lost = daily;  // equity through zero, or an overflowed cagr: always exact
  lost.total_return = -1.5;
  EXPECT_FALSE(detail::plain_growth_suffices(lost, 252));
  Metrics huge = daily;
  huge.cagr = huge.calmar = INFINITY;
  EXPECT_FALSE(detail::plain_growth_suffices(huge, 252));
}

// The case tests/oracle/metrics_oracle.py found: 300 one-minute returns whose product is
// 1 - 8e-7; with minute annualisation cagr multiplies the product's rounding by 1,209.
TEST(GrowthOnRealData, CpuMatchesCpuRefWhereTheProductIsNearOne) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "estx50fut_m1_2006-01-02.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing: case NOT run";
  Series all = test::load_csv(path);
  ASSERT_GE(all.size(), 4000u);
  SweepRequest req;
  req.history = HistoryView::of(all).prefix(4000);
  Grid& g = req.strategy.grid;
  g.family = Family::ma_cross;
  g.fast = {16};
  g.slow = {49};
  g.ma = {MaType::hma};
  g.side = {Side::long_only};
  req.strategy.bars_per_year = 362880;
  req.window = {4000, 300, 147};
  const SweepResult want = make_backend("cpu_ref")->sweep(req);
  const SweepResult got = make_backend("cpu")->sweep(req);
  ASSERT_EQ(want.top.size(), 1u);
  ASSERT_EQ(got.top.size(), 1u);
  const Metrics &w = want.top[0].metrics, &m = got.top[0].metrics;
  EXPECT_LT(std::abs(w.total_return), 1e-5);  // the case is what it says
  EXPECT_TRUE(test::metrics_near(m, w, 1e-9, 1e-12));
  EXPECT_NEAR(m.cagr, w.cagr, 1e-9 * std::abs(w.cagr));
  EXPECT_NEAR(m.calmar, w.calmar, 1e-9 * std::abs(w.calmar));
}

}  // namespace
}  // namespace wfod
