// Backend::block_summaries (robust selection): cpu against the cpu_ref oracle on real data
// with seeded random cuts (identical counts, sums within 1e-9 relative), and the blocks of
// every combo joined back equal to evaluate() on the whole window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod {
namespace {

Series goog() {
  return test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
}

StrategySpec small_ma_grid() {
  StrategySpec s;
  s.grid.family = Family::ma_cross;
  s.grid.fast = {3, 5, 8, 13};
  s.grid.slow = {5, 13, 21, 34};  // some fast >= slow: invalid combos keep identity blocks
  s.grid.ma = {MaType::sma, MaType::ema};
  s.grid.entry = {Entry::state, Entry::cross};
  s.costs.commission_bps = 2;
  return s;
}

StrategySpec small_channel_grid() {
  StrategySpec s;
  s.grid.family = Family::channel_breakout;
  s.grid.n = {5, 10, 20, 40};
  s.grid.source = {Source::close, Source::high_low};
  s.grid.side = {Side::long_short, Side::long_only};
  s.grid.vol_short = {5};
  s.grid.vol_long = {20, 40};
  s.grid.vol_threshold = {0.8};
  s.fill = Fill::next_open;
  s.costs.slippage_bps = 1;
  return s;
}

bool close_rel(double a, double b, double rel = 1e-9, double abs = 1e-12) {
  return std::fabs(a - b) <= std::max(abs, rel * std::max(std::fabs(a), std::fabs(b)));
}

void expect_same(const Summary& a, const Summary& b) {
  test::expect_same_summary_counts(a, b);
  const auto ra = test::summary_reals(a), rb = test::summary_reals(b);
  for (size_t i = 0; i < ra.size(); ++i)
    EXPECT_TRUE(close_rel(ra[i], rb[i])) << "field " << i << ": " << ra[i] << " vs " << rb[i];
}

class BlockSummaries : public ::testing::TestWithParam<int> {};

TEST_P(BlockSummaries, CpuMatchesCpuRefOnRealData) {
  const Series s = goog();
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec = GetParam() == 0 ? small_ma_grid() : small_channel_grid();
  auto ref = make_backend("cpu_ref");
  auto cpu = make_backend("cpu");
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed * 7 + static_cast<uint64_t>(GetParam()));
    SweepRequest req;
    req.history = h;
    req.strategy = spec;
    const size_t warmup = default_warmup(spec.grid);
    const size_t bars = std::uniform_int_distribution<size_t>(50, h.size() - warmup - 1)(rng);
    const size_t end = std::uniform_int_distribution<size_t>(warmup + bars + 1, h.size())(rng);
    req.window = {end, bars, warmup};
    req.threads = 2;
    // Random distinct interior cuts, sometimes none, sometimes one bar apart.
    const size_t ncuts = std::uniform_int_distribution<size_t>(0, 12)(rng);
    std::vector<size_t> cuts;
    for (size_t i = 0; i < ncuts; ++i)
      cuts.push_back(std::uniform_int_distribution<size_t>(req.window.first() + 1, end - 1)(rng));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const size_t blocks = cuts.size() + 1;

    const auto a = ref->block_summaries(req, cuts);
    const auto b = cpu->block_summaries(req, cuts);
    ASSERT_EQ(a.size(), spec.grid.size() * blocks);
    ASSERT_EQ(b.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      SCOPED_TRACE(i);
      expect_same(a[i], b[i]);
    }
    // Joined blocks are the window: same metrics as evaluate() (cpu_ref's own metric code).
    std::vector<uint64_t> ids;
    for (uint64_t id = 0; id < spec.grid.size(); ++id)
      if (spec.grid.decode(id).valid()) ids.push_back(id);
    const auto m = ref->evaluate(req, ids);
    for (size_t k = 0; k < ids.size(); ++k) {
      Summary joined;
      for (size_t j = 0; j < blocks; ++j) joined = combine(joined, b[ids[k] * blocks + j]);
      ASSERT_FALSE(joined.nonpositive);
      const Metrics f = finalize(joined, spec.bars_per_year);
      EXPECT_EQ(f.trades, m[k].trades);
      EXPECT_EQ(f.wins, m[k].wins);
      EXPECT_EQ(f.changes, m[k].changes);
      EXPECT_TRUE(close_rel(f.sharpe, m[k].sharpe));
      EXPECT_TRUE(close_rel(f.max_drawdown, m[k].max_drawdown));
    }
    for (uint64_t id = 0; id < spec.grid.size(); ++id) {
      if (spec.grid.decode(id).valid()) continue;
      for (size_t j = 0; j < blocks; ++j) EXPECT_EQ(b[id * blocks + j].bars, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Grids, BlockSummaries, ::testing::Values(0, 1));

TEST(BlockSummaries, RejectsBadCuts) {
  const Series s = goog();
  SweepRequest req;
  req.history = HistoryView::of(s);
  req.strategy = small_ma_grid();
  req.window = {1000, 500, 200};
  for (const char* name : {"cpu_ref", "cpu"}) {
    auto be = make_backend(name);
    for (std::vector<size_t> cuts : {std::vector<size_t>{500}, {999, 700}, {1000}, {600, 600}})
      EXPECT_THROW(be->block_summaries(req, cuts), std::invalid_argument) << name;
  }
}

TEST(CscvLayout, EqualBlocksAtTheEnd) {
  const WindowSpec w{1000, 103, 10};  // first = 897
  const auto l = selection::cscv_layout(w, 10);
  EXPECT_EQ(l.block_bars, 10u);
  EXPECT_EQ(l.remainder_bars, 3u);
  ASSERT_EQ(l.cuts.size(), 10u);  // remainder block + 10 blocks
  EXPECT_EQ(l.cuts[0], 900u);
  EXPECT_EQ(l.cuts[9], 990u);
  EXPECT_EQ(l.first_cscv_block(), 1u);
  const auto exact = selection::cscv_layout({1000, 100, 10}, 10);
  EXPECT_EQ(exact.cuts.size(), 9u);
  EXPECT_EQ(exact.first_cscv_block(), 0u);
  EXPECT_THROW(selection::cscv_layout(w, 104), std::invalid_argument);
}

}  // namespace
}  // namespace wfod
