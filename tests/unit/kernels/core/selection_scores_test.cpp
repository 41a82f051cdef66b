// Grid scores of robust selection: from block summaries (combos whose equity reaches zero
// replayed through evaluate) against evaluate() on cpu_ref, on random walks and on a spike
// series where short combos lose more than 100% in one bar (spec-notes 5); those combos are
// left out of PBO and counted.
#include <gtest/gtest.h>

#include <cmath>

#include "support/series.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::selection {
namespace {

void expect_scores_match(const Series& s, uint64_t expect_nonpositive_min) {
  SweepRequest req;
  req.history = HistoryView::of(s);
  req.strategy.grid.fast = {2, 4, 6};
  req.strategy.grid.slow = {5, 10, 15};
  req.strategy.grid.side = {Side::long_short, Side::long_only};
  req.window = {req.history.size(), 300, 45};
  req.threads = 2;
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  const BlockLayout layout = cscv_layout(req.window, 6);
  const GridScores a = score_grid(*cpu, req, layout);
  const GridScores b = score_grid_by_evaluate(*ref, req);
  ASSERT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.ranked, b.ranked);
  for (size_t i = 0; i < a.state.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.state[i], b.state[i]);
    if (a.state[i] == ComboState::invalid) continue;
    EXPECT_NEAR(a.objective[i], b.objective[i], 1e-9 * std::max(1.0, std::fabs(b.objective[i])));
    EXPECT_NEAR(a.sharpe[i], b.sharpe[i], 1e-9);
  }
  std::vector<uint8_t> take(a.state.size());
  for (size_t i = 0; i < take.size(); ++i) take[i] = a.state[i] != ComboState::invalid;
  const PboResult p = cscv_pbo(a.blocks, take, layout.total_blocks(), layout.first_cscv_block(), 6,
                               req.rank, 252, 2);
  EXPECT_GE(p.excluded_nonpositive, expect_nonpositive_min);
  EXPECT_EQ(p.combos + p.excluded_nonpositive, a.valid);
}

TEST(SelectionScores, BlocksMatchEvaluateOnRandomWalks) {
  for (uint64_t seed : {5u, 6u}) {
    SCOPED_TRACE(seed);
    expect_scores_match(test::random_walk(400, seed), 0);
  }
}

TEST(SelectionScores, NonpositiveEquityIsReplayedAndLeftOutOfPbo) {
  // A 2.5x up-move mid-window: a short through it loses 150% in one bar.
  expect_scores_match(test::spike_series(400, 9, {250}, 2.5), 1);
}

}  // namespace
}  // namespace wfod::selection
