// SPEC §5b's stops on the cuda backend against the cpu_ref oracle (SPEC §9), on the cases the
// cpu backend is held to (support/stops_cases.hpp: every stop kind, both sides, both fills,
// the vol filter, each family, long windows, a spike taking equity through zero). Per case,
// every entry point the device runs for a stop grid: the sweep's top-K (exact, and fast,
// which decides in float64 for stops: the same ids, no differing combo), evaluate() of every
// valid combo, block_summaries(), robust selection with PBO, and positions() bit for bit; and
// streams refused by name (auto then runs them on cpu). A grid whose stops are all 0 ranks as
// the same grid without stop axes; a walk-forward with stops (one preparation for every fold,
// the folds' scores following or not) gives cpu_ref's folds. Skipped, with the reason, where
// no CUDA device is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stops_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

using test::StopsCase;

#define WFOD_CUDA_OR_SKIP(var)                                                    \
  test::MadeBackend made_##var = test::make_or_skip("cuda");                      \
  if (!made_##var.backend) GTEST_SKIP() << "no CUDA device: " << made_##var.skip; \
  Backend& var = *made_##var.backend

// Top-K ids identical and counters equal, metrics and objectives within SPEC §9.
void expect_sweep_near(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics, kRel, kAbs))
        << "rank " << i;
    EXPECT_TRUE(test::near("objective", got.top[i].objective, want.top[i].objective, kRel, kAbs));
  }
}

class CudaStopsParity : public ::testing::TestWithParam<StopsCase> {};

TEST_P(CudaStopsParity, CudaMatchesCpuRef) {
  const StopsCase& c = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!c.synthetic && !std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data cuda stops parity NOT run";
  WFOD_CUDA_OR_SKIP(cuda);
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = c.synthetic ? c.synthetic() : test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const SweepRequest req = test::request_of(c, h);
  const Grid& grid = c.spec.grid;
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) +
               " bars, W=" + std::to_string(req.window.bars) + ", " + std::to_string(grid.size()) +
               " combos, cuda");

  // The device runs stop grids in every entry point but streams, which it refuses by name.
  EXPECT_TRUE(cuda.supports(Work::sweep, c.spec).ok());
  EXPECT_TRUE(cuda.supports(Work::selection, c.spec).ok());
  const Support stream = cuda.supports(Work::stream, c.spec);
  EXPECT_FALSE(stream.ok());
  EXPECT_NE(stream.refusal.find("backend cpu"), std::string::npos) << stream.refusal;

  // The sweep's top-K: the same ids in the same order, metrics within SPEC §9.
  const SweepResult want = ref->sweep(req), got = cuda.sweep(req);
  expect_sweep_near(got, want);
  EXPECT_EQ(got.backend, "cuda");

  // Precision fast: the stop evaluator decides in float64 anyway.
  SweepRequest fast = req;
  fast.precision = Precision::fast;
  const SweepResult got_fast = cuda.sweep(fast);
  expect_sweep_near(got_fast, want);
  ASSERT_TRUE(got_fast.fast_parity.has_value());
  EXPECT_EQ(got_fast.fast_parity->differing, 0u);
  EXPECT_EQ(got_fast.fast_parity->combos, want.evaluated);

  // evaluate() of every valid combo.
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> mg = cuda.evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs)) << "evaluate id " << ids[i];
  if (c.through_zero) {
    EXPECT_TRUE(std::any_of(mw.begin(), mw.end(), [](const Metrics& m) {
      return m.max_drawdown > 1 && m.cagr == -1;
    })) << "no combo's equity went through zero";
  }

  // block_summaries(): three cuts, counts identical, sums within SPEC §9 (a block whose equity
  // reaches zero has no specified peak, trough or drawdown).
  const size_t first = req.window.first(), w = req.window.bars;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + 3 * w / 4};
  const std::vector<Summary> bg = cuda.block_summaries(req, cuts),
                             bw = ref->block_summaries(req, cuts);
  ASSERT_EQ(bg.size(), bw.size());
  for (uint64_t id = 0; id < grid.size(); ++id) {
    for (size_t b = 0; b <= cuts.size(); ++b) {
      SCOPED_TRACE("block summary of id " + std::to_string(id) + ", block " + std::to_string(b));
      const Summary &x = bg[id * (cuts.size() + 1) + b], &y = bw[id * (cuts.size() + 1) + b];
      test::expect_same_summary_counts(x, y);
      const auto xr = test::summary_reals(x), yr = test::summary_reals(y);
      for (size_t f = 0; f < xr.size(); ++f) {
        const bool drawdown_field = f >= 4 && f <= 6;  // peak, trough, drawdown
        if (y.nonpositive && drawdown_field) continue;
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
      }
    }
  }

  // Robust selection with PBO (the host pipeline on the device's block Summaries): every
  // combo's state identical, objectives within SPEC §9.
  if (!c.through_zero) {
    selection::RobustOptions opt;
    opt.pbo = true;
    opt.layout = selection::cscv_layout(req.window, 6);
    ASSERT_NE(cuda.selection(), nullptr);
    const selection::RobustScores rg = cuda.selection()->robust_scores(req, opt),
                                  rw = selection::host_robust_scores(*ref, req, opt);
    EXPECT_EQ(rg.valid, rw.valid);
    EXPECT_EQ(rg.ranked, rw.ranked);
    ASSERT_EQ(rg.state, rw.state);
    for (size_t i = 0; i < rw.objective.size(); ++i) {
      if (std::isnan(rw.objective[i])) {
        EXPECT_TRUE(std::isnan(rg.objective[i])) << "id " << i;
        continue;
      }
      EXPECT_TRUE(test::near("objective of id " + std::to_string(i), rg.objective[i],
                             rw.objective[i], kRel, kAbs));
    }
    ASSERT_TRUE(rg.pbo.has_value());
    ASSERT_TRUE(rw.pbo.has_value());
  }

  // positions() bit for bit, from the anchor, for every valid combo (twice for the first,
  // whose third request takes the tracker path).
  size_t changed = 0;
  for (uint64_t id : ids) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> pw = ref->positions(h, c.spec, combo);
    ASSERT_EQ(cuda.positions(h, c.spec, combo), pw) << "positions of id " << id;
    if (combo.stops_on()) changed += ref->positions(h, c.spec, test::without_stops(combo)) != pw;
  }
  for (int i = 0; i < 2 && !ids.empty(); ++i)
    ASSERT_EQ(cuda.positions(h, c.spec, grid.decode(ids[0])),
              ref->positions(h, c.spec, grid.decode(ids[0])));
  EXPECT_GT(changed, 0u) << "no stop changed any position: the case tests nothing";
  std::printf(
      "[ stops    ] cuda vs cpu_ref: %s: %zu valid combos, %zu with positions changed "
      "by stops (cpu_ref %.3fs, cuda %.3fs)\n",
      c.name.c_str(), ids.size(), changed, want.seconds, got.seconds);
}

std::string case_name(const ::testing::TestParamInfo<StopsCase>& tp) { return tp.param.name; }

INSTANTIATE_TEST_SUITE_P(Cases, CudaStopsParity, ::testing::ValuesIn(test::stops_cases()),
                         case_name);

// A grid whose stop axes hold only 0 ranks on the device as the same grid without them: the
// same ids, every metric within SPEC §9 (its combos walk the stop evaluator without the stop
// state: positions r_t, the plain grid's).
TEST(CudaStopsParity, AllZeroStopsRankAsNoStops) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid plain;
  plain.family = Family::ma_cross;
  plain.fast = {5, 10, 20};
  plain.slow = {30, 60};
  plain.ma = {MaType::sma, MaType::hma};
  plain.side = test::kBothSides;
  plain.entry = {Entry::state, Entry::cross};
  SweepRequest req;
  req.history = h;
  req.strategy = test::spec_of(plain, Fill::next_open, 2);
  req.window = {h.size(), 1500, default_warmup(plain)};
  req.rank.top = 24;
  const SweepResult want = make_backend("cpu_ref")->sweep(req);
  expect_sweep_near(cuda.sweep(req), want);
  SweepRequest zero = req;
  zero.strategy.grid.stop_loss = {0};
  zero.strategy.grid.trailing_stop = {0};
  expect_sweep_near(cuda.sweep(zero), want);
}

// A walk-forward of a stop grid on the device (every fold's sweep, its winner's positions out
// of sample) against cpu_ref's: the same winners fold by fold, metrics within SPEC §9.
TEST(CudaStopsParity, WalkMatchesCpuRef) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5, 10, 20};
  g.slow = {30, 60};
  g.side = test::kBothSides;
  const StrategySpec spec =
      test::spec_of(test::with_stops(g, {0, 0.03}, {0, 0.1}, {0, 0.05}), Fill::next_open, 2);
  RankSpec rank;
  rank.min_trades = 2;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  for (bool scores_follow : {false, true}) {
    SCOPED_TRACE(scores_follow ? "scores follow" : "plain folds");
    WalkSpec walk;
    walk.is_bars = 500;
    walk.oos_bars = 250;
    walk.warmup = default_warmup(spec.grid);
    walk.scores_follow = scores_follow;
    const WalkResult want = walk_forward(*ref, h, spec, rank, walk, Precision::exact, 1);
    const WalkResult got = walk_forward(cuda, h, spec, rank, walk, Precision::exact, 2);
    ASSERT_GE(want.folds.size(), 4u);
    ASSERT_EQ(got.folds.size(), want.folds.size());
    for (size_t f = 0; f < want.folds.size(); ++f) {
      SCOPED_TRACE("fold " + std::to_string(f));
      const Fold &a = got.folds[f], &b = want.folds[f];
      ASSERT_EQ(a.winner.has_value(), b.winner.has_value());
      if (b.winner) {
        EXPECT_EQ(a.winner->combo.id, b.winner->combo.id);
      }
      EXPECT_TRUE(test::metrics_near(a.is, b.is, kRel, kAbs)) << "IS";
      EXPECT_TRUE(test::metrics_near(a.oos, b.oos, kRel, kAbs)) << "OOS";
    }
    EXPECT_TRUE(test::metrics_near(got.oos, want.oos, kRel, kAbs)) << "whole OOS series";
  }
}

// "auto" on a device: a stop grid's sweep runs on the device, its stream on cpu (which
// carries the stop state in its chunks), with cpu_ref's ranking either way.
TEST(CudaStopsParity, AutoSweepsOnTheDeviceAndStreamsOnCpu) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {10, 20, 40};
  g.side = test::kBothSides;
  SweepRequest req;
  req.history = h;
  req.strategy = test::spec_of(test::with_stops(g, {0, 0.04}, {0}, {0, 0.06}), Fill::close, 2);
  req.window = {h.size(), 1000, default_warmup(req.strategy.grid)};
  EXPECT_TRUE(cuda.supports(Work::sweep, req.strategy).ok());
  EXPECT_FALSE(cuda.supports(Work::stream, req.strategy).ok());
  const std::unique_ptr<Backend> automatic = make_backend("auto");
  const SweepResult want = make_backend("cpu_ref")->sweep(req), got = automatic->sweep(req);
  EXPECT_EQ(got.backend, "cuda");
  expect_sweep_near(got, want);
  StreamSpec spec;
  spec.strategy = req.strategy;
  spec.window = req.window.bars;
  spec.warmup = req.window.warmup;
  ASSERT_TRUE(automatic->supports(Work::stream, req.strategy).ok());
  const std::unique_ptr<Stream> stream = automatic->open_stream(spec, h);
  EXPECT_TRUE(stream->bounded());
  EXPECT_EQ(stream->stats().bars, h.size());
}

}  // namespace
}  // namespace wfod
