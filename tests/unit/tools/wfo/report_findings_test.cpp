// The report's findings in words (tools/wfo/report_findings): a winner on the edge of the
// grid (lowest or highest value of a numeric axis, in any listed order; never for one-value
// axes or named choices), out-of-sample losses, and the sentences reaching report.json.
#include "tools/wfo/report_findings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/series.hpp"
#include "tools/wfo/report_data.hpp"

namespace wfod::cli {
namespace {

Grid findings_ma_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {10, 5, 20};  // listed out of order: the edges are 5 and 20
  g.slow = {50, 100, 200};
  g.ma = {MaType::sma, MaType::ema};
  return g;
}

Combo combo(int fast, int slow) {
  Combo c;
  c.fast = fast;
  c.slow = slow;
  c.ma = MaType::ema;
  return c;
}

Fold fold_with(size_t index, std::optional<Combo> winner) {
  Fold f;
  f.index = index;
  if (winner) f.winner = Ranked{*winner, Metrics{}, 0};
  return f;
}

WalkReport walk_of(Grid g, std::vector<Fold> folds, double oos_return) {
  WalkReport r;
  r.spec.grid = std::move(g);
  r.result.folds = std::move(folds);
  r.result.oos.total_return = oos_return;
  r.result.oos.cagr = oos_return / 2;
  r.result.oos.bars = 750;
  return r;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(ReportFindings, EdgeParametersAreTheAxisExtremesInAnyListedOrder) {
  const Grid g = findings_ma_grid();
  EXPECT_TRUE(edge_parameters(g, combo(10, 100)).empty());
  EXPECT_EQ(edge_parameters(g, combo(5, 100)),
            std::vector<std::string>{"fast = 5, the lowest value tried"});
  EXPECT_EQ(edge_parameters(g, combo(20, 200)),
            (std::vector<std::string>{"fast = 20, the highest value tried",
                                      "slow = 200, the highest value tried"}));
  // The first listed value (10) is not an edge; named choices (ma) never are.
  EXPECT_TRUE(edge_parameters(g, combo(10, 50)).size() == 1);
  Grid one = g;
  one.fast = {10};  // a fixed value is no edge of a search
  EXPECT_EQ(edge_parameters(one, combo(10, 100)), std::vector<std::string>{});
}

TEST(ReportFindings, WalkSaysWhenWinnersSitOnTheEdge) {
  const WalkReport r = walk_of(findings_ma_grid(),
                               {fold_with(0, combo(10, 100)), fold_with(1, combo(5, 100)),
                                fold_with(2, std::nullopt), fold_with(3, combo(10, 200))},
                               0.12);
  const std::vector<std::string> f = walk_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0],
            "The winner sits on the edge of the grid in 2 of 3 folds (fold 1: fast = 5, the "
            "lowest value tried; fold 3: slow = 200, the highest value tried): the best "
            "parameters may lie outside the range searched: widen the grid past that edge "
            "before trusting them.");
}

TEST(ReportFindings, WalkSaysWhenOutOfSampleLostMoney) {
  const WalkReport losing = walk_of(findings_ma_grid(), {fold_with(0, combo(10, 100))}, -0.09);
  const std::vector<std::string> f = walk_findings(losing);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0],
            "Out of sample this walk lost money: total return -9.0 % (CAGR -4.5 % a year) over "
            "750 bars traded with each fold's in-sample winner.");
  // A winning walk with interior winners has nothing to say.
  EXPECT_TRUE(
      walk_findings(walk_of(findings_ma_grid(), {fold_with(0, combo(10, 100))}, 0.01)).empty());
}

TEST(ReportFindings, SweepSaysWhenTheTopComboIsOnTheEdgeOrLost) {
  SweepReport r;
  r.spec.grid = findings_ma_grid();
  Ranked top{combo(20, 50), Metrics{}, 0};
  top.metrics.total_return = -0.2;
  r.result.top = {top};
  const std::vector<std::string> f = sweep_findings(r);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], "Even the top combo lost money on this window: total return -20.0 %, in sample.");
  EXPECT_TRUE(any_contains(f,
                           "The top combo sits on the edge of the grid (fast = 20, the highest "
                           "value tried; slow = 50, the lowest value tried)"));
}

TEST(ReportFindings, TheReportJsonCarriesThem) {
  // A real walk on a random walk: whatever it finds is what the page shows.
  Series series = test::random_walk(1400, 7);
  const HistoryView h = HistoryView::of(series);
  auto backend = make_backend("cpu_ref");
  StrategySpec spec;
  spec.grid = findings_ma_grid();
  RankSpec rank;
  const WalkSpec walk{300, 150, WalkMode::rolling, 600};
  WalkResult res = walk_forward(*backend, h, spec, rank, walk, Precision::exact, 1);
  const WalkReport r{"walk.csv", "", h, spec, rank, walk, std::move(res), "cpu_ref"};
  RunInputs in;
  in.setup.spec = spec;
  in.setup.csv_path = "walk.csv";
  const Json summary = walk_report_json(r, in, {})["summary"];
  EXPECT_EQ(summary["findings"], Json(walk_findings(r)));
  EXPECT_EQ(any_contains(walk_findings(r), "lost money"), r.result.oos.total_return < 0);
}

}  // namespace
}  // namespace wfod::cli
