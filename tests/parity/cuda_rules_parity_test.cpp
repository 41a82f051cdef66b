// SPEC §5a's rules strategies on the cuda backend against the cpu_ref oracle (SPEC §9), on the
// shared real data (support/rules_cases.hpp: the four built-in families written as rules, rsi
// levels above and below 50, arithmetic and crosses, bands, channels, volume, every stop kind
// on both sides, fill close and next_open, the vol filter, undefined stretches, arithmetic at
// the dead band's edge, invalid combos through `valid`). Per case, every entry point the
// device runs for a rules grid: the sweep's top-K (exact, and fast, which decides in float64
// for rules: the same ids, no differing combo), evaluate() of every valid combo, block
// Summaries, robust selection with PBO and positions() bit for bit; streams refused by name.
// Then a walk-forward with the default robust selection, a sweep after the volumes change,
// "auto" (sweeps on the device, streams on cpu) and a program too deep for a device thread
// (refused by supports(), run on cpu by auto). Skipped, with the reason, where no CUDA device
// is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/rules_cases.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

using test::RulesCase;

#define WFOD_CUDA_OR_SKIP(var)                                                    \
  test::MadeBackend made_##var = test::make_or_skip("cuda");                      \
  if (!made_##var.backend) GTEST_SKIP() << "no CUDA device: " << made_##var.skip; \
  Backend& var = *made_##var.backend

// Top-K ids identical and counters equal, metrics (trade counts exact) and objectives within
// SPEC §9.
void expect_sweep_near(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_EQ(got.top[i].metrics.trades, want.top[i].metrics.trades) << "rank " << i;
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics, kRel, kAbs))
        << "rank " << i;
    EXPECT_TRUE(test::near("objective", got.top[i].objective, want.top[i].objective, kRel, kAbs));
  }
}

std::optional<Series> load_case(const RulesCase& c, std::string* skip) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path)) {
    *skip = path.string() + " is missing: real-data cuda rules parity NOT run";
    return std::nullopt;
  }
  return test::load_csv(path);
}

class CudaRulesParity : public ::testing::TestWithParam<RulesCase> {};

TEST_P(CudaRulesParity, CudaMatchesCpuRef) {
  const RulesCase& c = GetParam();
  std::string skip;
  const std::optional<Series> s = load_case(c, &skip);
  if (!s) GTEST_SKIP() << skip;
  WFOD_CUDA_OR_SKIP(cuda);
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const HistoryView h = HistoryView::of(*s);
  const SweepRequest req = test::rules_case_request(c, h);
  const Grid& grid = c.spec.grid;
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) +
               " bars, W=" + std::to_string(req.window.bars) + ", " + std::to_string(grid.size()) +
               " combos, cuda");

  // The device runs rules grids in every entry point but streams, which it refuses by name.
  EXPECT_TRUE(cuda.supports(Work::sweep, c.spec).ok());
  EXPECT_TRUE(cuda.supports(Work::selection, c.spec).ok());
  const Support stream = cuda.supports(Work::stream, c.spec);
  EXPECT_FALSE(stream.ok());
  EXPECT_NE(stream.refusal.find("backend cpu"), std::string::npos) << stream.refusal;

  // The sweep's top-K: the same ids in the same order, metrics within SPEC §9.
  const SweepResult want = ref->sweep(req), got = cuda.sweep(req);
  expect_sweep_near(got, want);
  EXPECT_EQ(got.backend, "cuda");

  // Precision fast: the rules evaluator decides in float64 anyway.
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
  ASSERT_FALSE(ids.empty());
  const std::vector<Metrics> mg = cuda.evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  size_t traded = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(mg[i].trades, mw[i].trades) << "evaluate id " << ids[i];
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs)) << "evaluate id " << ids[i];
    traded += mw[i].trades > 0;
  }
  EXPECT_GT(traded, 0u) << "no combo trades: the case tests nothing";

  // block_summaries(): three cuts, counts identical, sums within SPEC §9 (a block whose equity
  // reaches zero has no specified peak, trough or drawdown); an invalid combo's the identity.
  const size_t first = req.window.first(), w = req.window.bars;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + 3 * w / 4};
  const size_t blocks = cuts.size() + 1;
  const std::vector<Summary> bg = cuda.block_summaries(req, cuts),
                             bw = ref->block_summaries(req, cuts);
  ASSERT_EQ(bg.size(), grid.size() * blocks);
  ASSERT_EQ(bw.size(), bg.size());
  for (uint64_t id = 0; id < grid.size(); ++id) {
    const bool valid = grid.decode(id).valid();
    for (size_t b = 0; b < blocks; ++b) {
      SCOPED_TRACE("block summary of id " + std::to_string(id) + ", block " + std::to_string(b));
      const Summary &x = bg[id * blocks + b], &y = bw[id * blocks + b];
      if (!valid) {
        EXPECT_EQ(x.bars, 0) << "an invalid combo's block is not the identity";
        continue;
      }
      test::expect_same_summary_counts(x, y);
      const auto xr = test::summary_reals(x), yr = test::summary_reals(y);
      for (size_t f = 0; f < xr.size(); ++f) {
        const bool drawdown_field = f >= 4 && f <= 6;  // peak, trough, drawdown
        if (y.nonpositive && drawdown_field) continue;
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
      }
    }
  }

  // Robust selection with PBO (the host pipeline on the device's rules Summaries): every
  // combo's state identical, objectives within SPEC §9.
  {
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
    ASSERT_EQ(rg.pbo.has_value(), rw.pbo.has_value());
  }

  // positions() bit for bit, from the anchor, for every valid combo.
  size_t stopped = 0;
  for (uint64_t id : ids) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> pw = ref->positions(h, c.spec, combo);
    ASSERT_EQ(cuda.positions(h, c.spec, combo), pw) << "positions of id " << id;
    if (!combo.stops_on()) continue;
    Combo plain = combo;
    plain.stop_loss = plain.take_profit = plain.trailing_stop = 0;
    stopped += ref->positions(h, c.spec, plain) != pw;
  }
  if (grid.has_stops()) {
    EXPECT_GT(stopped, 0u) << "no stop changed any position: the case tests nothing";
  }
  std::printf(
      "[ rules    ] cuda vs cpu_ref: %s: %zu valid of %llu combos, %zu trading, %zu changed by "
      "stops (cpu_ref %.3fs, cuda %.3fs)\n",
      c.name.c_str(), ids.size(), static_cast<unsigned long long>(grid.size()), traded, stopped,
      want.seconds, got.seconds);
}

std::string case_name(const ::testing::TestParamInfo<RulesCase>& tp) { return tp.param.name; }

INSTANTIATE_TEST_SUITE_P(Cases, CudaRulesParity, ::testing::ValuesIn(test::rules_cases()),
                         case_name);

// A walk-forward of a rules grid with stops on the device, each fold's winner chosen by the
// default robust selection (SPEC §10: PBO over 16 blocks, arg-max), with and without the folds'
// scores following their sweeps: cpu_ref's winners fold by fold, metrics within SPEC §9.
TEST(CudaRulesParity, WalkWithRobustSelectionMatchesCpuRef) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.fast = {5, 10, 20};
  g.slow = {30, 60};
  g.ma = {MaType::ema};
  g.stop_loss = {0, 0.03};
  const StrategySpec spec = test::spec_of(test::builtin_as_rules(g), Fill::next_open, 2);
  RankSpec rank;
  rank.min_trades = 2;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  auto robust = [](Backend& backend) -> FoldSelector {
    return [&backend](const SweepRequest& req, const SweepResult& sweep,
                      const std::optional<Ranked>& previous) -> std::optional<Ranked> {
      std::optional<uint64_t> current;
      if (previous) current = previous->combo.id;
      return selection::select(backend, req, sweep, current, selection::SelectionSpec{}).published;
    };
  };
  for (bool scores_follow : {false, true}) {
    SCOPED_TRACE(scores_follow ? "scores follow" : "plain folds");
    WalkSpec walk;
    walk.is_bars = 500;
    walk.oos_bars = 250;
    walk.warmup = default_warmup(spec.grid);
    walk.scores_follow = scores_follow;
    const WalkResult want =
        walk_forward(*ref, h, spec, rank, walk, Precision::exact, 1, {}, robust(*ref));
    const WalkResult got =
        walk_forward(cuda, h, spec, rank, walk, Precision::exact, 2, {}, robust(cuda));
    ASSERT_GE(want.folds.size(), 4u);
    ASSERT_EQ(got.folds.size(), want.folds.size());
    size_t winners = 0;
    for (size_t f = 0; f < want.folds.size(); ++f) {
      SCOPED_TRACE("fold " + std::to_string(f));
      const Fold &a = got.folds[f], &b = want.folds[f];
      EXPECT_EQ(a.evaluated, b.evaluated);
      EXPECT_EQ(a.skipped, b.skipped);
      ASSERT_EQ(a.winner.has_value(), b.winner.has_value());
      if (b.winner) {
        ++winners;
        EXPECT_EQ(a.winner->combo.id, b.winner->combo.id);
      }
      EXPECT_TRUE(test::metrics_near(a.is, b.is, kRel, kAbs)) << "IS";
      EXPECT_TRUE(test::metrics_near(a.oos, b.oos, kRel, kAbs)) << "OOS";
    }
    EXPECT_GT(winners, 0u) << "no fold published a winner: the walk tests nothing";
    EXPECT_TRUE(test::metrics_near(got.oos, want.oos, kRel, kAbs)) << "whole OOS series";
  }
}

// A rule that reads volume, swept again after the volumes change (the same bars otherwise):
// the device's preparation is rebuilt, and both sweeps give cpu_ref's.
TEST(CudaRulesParity, NewVolumesAreSweptAfresh) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  Series s = test::load_csv(path);
  rules::RulesText t;
  t.params = {"n"};
  t.indicators = {{"m", "sma($n)"}};
  t.long_entry = "close > m and volume > 5000000";
  t.long_exit = "close < m";
  t.short_entry = "close < m and volume < 3000000";
  t.short_exit = "close > m";
  SweepRequest req;
  req.strategy = test::spec_of(test::rules_case_grid(t, {{5, 10, 20, 40}}), Fill::close, 2);
  req.rank.top = 4;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "the file's volumes" : "volumes changed");
    if (round == 1)
      for (double& v : s.volume) v = v > 4000000 ? 1000000 : 9000000;
    req.history = HistoryView::of(s);
    req.window = {s.close.size(), 1500, default_warmup(req.strategy.grid)};
    expect_sweep_near(cuda.sweep(req), ref->sweep(req));
  }
}

// "auto" on a device: a rules grid's sweep runs on the device, its stream on cpu (whose rules
// streams re-sweep), with cpu_ref's ranking either way.
TEST(CudaRulesParity, AutoSweepsOnTheDeviceAndStreamsOnCpu) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {10, 20, 40};
  g.stop_loss = {0, 0.04};
  SweepRequest req;
  req.history = h;
  req.strategy = test::spec_of(test::builtin_as_rules(g), Fill::close, 2);
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
  EXPECT_EQ(stream->stats().bars, h.size());
}

// A condition whose value stack is deeper than a device thread holds (kRuleStack) is refused
// by supports() with the reason; auto runs it on cpu, with cpu_ref's ranking.
TEST(CudaRulesParity, TooDeepForADeviceThreadRunsOnCpuUnderAuto) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  WFOD_CUDA_OR_SKIP(cuda);
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  // close + (close + (close + ...)): every operand waits on the stack, 41 deep.
  std::string deep = "m";
  for (int i = 0; i < 40; ++i) deep = "close + (" + deep + ")";
  rules::RulesText t;
  t.params = {"n"};
  t.indicators = {{"m", "sma($n)"}};
  t.long_entry = deep + " > close * 40 + m * 1.01";
  t.short_entry = "close < m";
  SweepRequest req;
  req.history = h;
  req.strategy = test::spec_of(test::rules_case_grid(t, {{5, 20}}), Fill::close, 2);
  req.window = {h.size(), 1000, default_warmup(req.strategy.grid)};
  const Support sweep = cuda.supports(Work::sweep, req.strategy);
  EXPECT_FALSE(sweep.ok());
  EXPECT_NE(sweep.refusal.find("backend cpu"), std::string::npos) << sweep.refusal;
  EXPECT_THROW(cuda.sweep(req), Unsupported);
  const SweepResult got = make_backend("auto")->sweep(req);
  EXPECT_EQ(got.backend, "cpu");
  expect_sweep_near(got, make_backend("cpu_ref")->sweep(req));
}

}  // namespace
}  // namespace wfod
