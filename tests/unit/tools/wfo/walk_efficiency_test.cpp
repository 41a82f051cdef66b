// Walk-forward efficiency two ways (tools/wfo/walk_efficiency): the pooled in-sample CAGR
// and the aggregate WFE by hand, the case the mean of fold ratios misreads (one fold at 8.0
// makes a losing walk read near 1), flat folds, a wiped-out fold, and the same figures in
// walk --json, the text table and the report's summary.
#include "tools/wfo/walk_efficiency.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/series.hpp"
#include "tools/wfo/json_output.hpp"
#include "tools/wfo/report_data.hpp"
#include "tools/wfo/report_template.hpp"
#include "tools/wfo/table_output.hpp"

namespace wfod::cli {
namespace {

constexpr double kDaily = 252;

// A fold whose winner earned `is_return` over `is_bars` in sample and `oos_cagr` after.
Fold fold(size_t index, double is_return, size_t is_bars, double oos_cagr, bool winner = true) {
  Fold f;
  f.index = index;
  f.is_first = 1000 * index;
  f.is_last = f.is_first + is_bars - 1;
  if (winner) {
    f.winner = Ranked{};
    f.is.total_return = is_return;
    f.is.cagr = std::pow(1 + is_return, kDaily / static_cast<double>(is_bars)) - 1;
  }
  f.oos.cagr = oos_cagr;
  return f;
}

TEST(WalkEfficiency, OneLuckyFoldDoesNotCarryTheAggregate) {
  // Eight folds each earning 10 % over a year in sample; one trades at 8x that out of
  // sample, the others lose 2 % a year; the walk as a whole loses 5 % a year.
  WalkResult r;
  r.folds.push_back(fold(0, 0.10, 252, 0.80));
  for (size_t i = 1; i < 8; ++i) r.folds.push_back(fold(i, 0.10, 252, -0.02));
  r.oos.cagr = -0.05;
  double mean = 0;
  for (const Fold& f : r.folds) mean += f.oos.cagr / f.is.cagr / 8;
  EXPECT_NEAR(mean, 0.825, 1e-12);  // what the mean-of-ratios headline says
  EXPECT_NEAR(pooled_is_cagr(r, kDaily), 0.10, 1e-12);
  ASSERT_TRUE(aggregate_wfe(r, kDaily));
  EXPECT_NEAR(*aggregate_wfe(r, kDaily), -0.5, 1e-11);
}

TEST(WalkEfficiency, PooledCagrCompoundsFoldsOverTheirBars) {
  WalkResult r;
  r.folds.push_back(fold(0, 0.21, 100, 0));
  r.folds.push_back(fold(1, -0.05, 300, 0));
  r.folds.push_back(fold(2, 0, 200, 0, /*winner=*/false));  // flat: factor 1 over its bars
  const double expected = std::pow(1.21 * 0.95, kDaily / 600) - 1;
  EXPECT_DOUBLE_EQ(pooled_is_cagr(r, kDaily), expected);
  r.oos.cagr = 0.03;
  EXPECT_DOUBLE_EQ(*aggregate_wfe(r, kDaily), 0.03 / expected);
}

TEST(WalkEfficiency, OneFoldIsThatFoldsRatio) {
  WalkResult r;
  r.folds.push_back(fold(0, 0.37, 500, 0.12));
  r.oos.cagr = 0.12;
  EXPECT_EQ(pooled_is_cagr(r, kDaily), r.folds[0].is.cagr);
  EXPECT_EQ(*aggregate_wfe(r, kDaily), 0.12 / r.folds[0].is.cagr);
}

TEST(WalkEfficiency, UndefinedUnlessThePooledInSampleCagrIsPositive) {
  WalkResult none;
  EXPECT_EQ(pooled_is_cagr(none, kDaily), 0);
  EXPECT_FALSE(aggregate_wfe(none, kDaily));
  WalkResult losing;
  losing.folds.push_back(fold(0, -0.10, 252, 0.05));
  EXPECT_FALSE(aggregate_wfe(losing, kDaily));
  WalkResult wiped;  // a short whose price more than doubled: SPEC §6's -1
  wiped.folds.push_back(fold(0, 3.0, 252, 0.05));
  wiped.folds.push_back(fold(1, -1.5, 252, 0.05));
  EXPECT_EQ(pooled_is_cagr(wiped, kDaily), -1);
  EXPECT_FALSE(aggregate_wfe(wiped, kDaily));
}

TEST(WalkEfficiency, EveryOutputShowsBothAndSaysWhichIsWhich) {
  Series series = test::random_walk(1400, 7);
  const HistoryView h = HistoryView::of(series);
  auto backend = make_backend("cpu_ref");
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {3, 6, 9, 12};
  spec.grid.slow = {10, 20, 30};
  RankSpec rank;
  const WalkSpec walk{300, 150, WalkMode::rolling, 90};
  WalkResult res = walk_forward(*backend, h, spec, rank, walk, Precision::exact, 1);
  const WalkReport r{"walk.csv", "", h, spec, rank, walk, std::move(res), "cpu_ref"};
  const std::optional<double> aggregate = aggregate_wfe(r.result, spec.bars_per_year);

  const Json j = walk_json(r);
  EXPECT_EQ(j["wfe"].get<double>(), r.result.wfe);
  if (aggregate) {
    EXPECT_EQ(j["wfe_aggregate"].get<double>(), *aggregate);
  } else {
    EXPECT_TRUE(j["wfe_aggregate"].is_null());
  }
  RunInputs in;
  in.setup.spec = spec;
  in.setup.csv_path = "walk.csv";
  const Json summary = walk_report_json(r, in, {})["summary"];
  EXPECT_EQ(summary["wfe"], j["wfe"]);
  EXPECT_EQ(summary["wfe_aggregate"], j["wfe_aggregate"]);
  EXPECT_EQ(summary["is_cagr_pooled"].get<double>(), pooled_is_cagr(r.result, spec.bars_per_year));

  const std::string table = walk_table(r);
  EXPECT_NE(table.find("WFE, mean of fold ratios"), std::string::npos) << table;
  EXPECT_NE(table.find("WFE, aggregate"), std::string::npos) << table;
}

TEST(WalkEfficiency, TheReportLabelsTheHeadlineAndDefinesBoth) {
  const std::string page(report_template());
  EXPECT_EQ(page.find("WFE (OOS/IS CAGR)"), std::string::npos);
  EXPECT_NE(page.find("'WFE, mean of fold ratios'"), std::string::npos);
  EXPECT_NE(page.find("'WFE, aggregate'"), std::string::npos);
  EXPECT_NE(page.find("pooled in-sample CAGR"), std::string::npos);
}

}  // namespace
}  // namespace wfod::cli
