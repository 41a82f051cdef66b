// Walk-forward (SPEC §8): fold arithmetic, and the stitched out-of-sample series recomputed
// here from each fold's winner's positions (the previous winner's p_{t-2} at a fold's first
// bar; a fold with no ranked combo flat), its metrics, and the WFE definition.
#include "wfod/walk_forward.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/compare.hpp"
#include "support/oracle.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/segments.hpp"

namespace wfod {
namespace {

// --- Fold arithmetic -------------------------------------------------------------------------

// SPEC §8: fold f's IS window ends at bar warmup + W + f*k, its OOS bars follow; only whole
// folds: the last OOS bar warmup + W + (f+1)*k must exist (<= N - 1).
size_t brute_folds(size_t n_bars, size_t w, size_t k, size_t warmup) {
  size_t f = 0;
  if (n_bars == 0) return 0;
  while (warmup + w + (f + 1) * k <= n_bars - 1) ++f;
  return f;
}

TEST(CountFolds, Arithmetic) {
  struct Case {
    size_t n, w, k, warmup, want;
  };
  const Case cases[] = {
      {1000, 300, 100, 50, 6},  // (999 - 350) / 100 = 6.49
      {951, 300, 100, 50, 6},   // exactly 6: the last OOS bar is 950 = N - 1
      {950, 300, 100, 50, 5},   // one bar short of the 6th
      {451, 300, 100, 50, 1},   // one fold exactly
      {450, 300, 100, 50, 0},   // not even one
      {300, 300, 100, 50, 0},   // shorter than the IS window
      {0, 300, 100, 50, 0},     // empty
      {10, 1, 1, 0, 8},         // W = 1, k = 1: IS [1,1], OOS 2..9
      {5036, 1000, 250, 150, 15},
  };
  for (const Case& c : cases) {
    for (WalkMode mode : {WalkMode::rolling, WalkMode::anchored}) {
      SCOPED_TRACE("N=" + std::to_string(c.n) + " W=" + std::to_string(c.w) +
                   " k=" + std::to_string(c.k) + " warmup=" + std::to_string(c.warmup) +
                   " mode=" + std::string(to_string(mode)));
      WalkSpec ws{c.w, c.k, mode, c.warmup};
      EXPECT_EQ(count_folds(c.n, ws), c.want);
      EXPECT_EQ(brute_folds(c.n, c.w, c.k, c.warmup), c.want);  // the table agrees with the rule
    }
  }
  EXPECT_EQ(parse_walk_mode("anchored"), WalkMode::anchored);
  EXPECT_EQ(parse_walk_mode(to_string(WalkMode::rolling)), WalkMode::rolling);
  EXPECT_THROW(parse_walk_mode("expanding"), std::invalid_argument);
}

// --- The stitched OOS series, recomputed --------------------------------------------------

Grid walk_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3, 6, 12};
  g.slow = {12, 25};
  g.ma = {MaType::ema, MaType::sma};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

struct WalkCase {
  std::string name;
  Series series;
  StrategySpec spec;
  RankSpec rank;
  WalkSpec walk;
  bool expect_flat_fold;  // some fold must have no ranked combo
};

std::vector<WalkCase> walk_cases() {
  std::vector<WalkCase> cs;
  StrategySpec spec;
  spec.grid = walk_grid();
  spec.costs.commission_bps = 4;
  spec.costs.slippage_bps = 1;
  {
    WalkCase c{"rolling_close",
               test::random_walk(1500, 4711, 40, 0.012, 0.004, 0.0004),
               spec,
               {},
               {300, 100, WalkMode::rolling, 75},
               false};
    cs.push_back(c);
  }
  {
    WalkCase c{"anchored_next_open",
               test::random_walk(1300, 4712, 40, 0.012, 0.004),
               spec,
               {},
               {250, 120, WalkMode::anchored, 80},
               false};
    c.spec.fill = Fill::next_open;
    c.rank.objective = Objective::total_return;
    cs.push_back(c);
  }
  {
    // Prices frozen over bars 500..1099: IS windows inside it see no position change, so at most
    // one (held) trade, and min_trades = 2 leaves those folds without a winner: flat OOS.
    Series s = test::random_walk(1600, 4713, 40, 0.012, 0.004);
    for (size_t t = 500; t < 1100; ++t)
      s.open[t] = s.high[t] = s.low[t] = s.close[t] = s.close[499];
    WalkCase c{"rolling_with_flat_folds", s, spec, {}, {200, 100, WalkMode::rolling, 75}, true};
    c.rank.min_trades = 2;
    cs.push_back(c);
  }
  return cs;
}

// Runs the walk and recomputes everything SPEC §8 says about it from sweeps, positions() and
// the §2 segments; min_folds guards against a vacuous case.
void expect_walk_matches_recompute(const WalkCase& c, const char* backend, size_t min_folds) {
  SCOPED_TRACE(c.name + " backend=" + backend);
  auto be = make_backend(backend);
  const HistoryView h = HistoryView::of(c.series);
  const WalkResult r = walk_forward(*be, h, c.spec, c.rank, c.walk, Precision::exact, 2);

  const size_t folds = count_folds(h.size(), c.walk);
  ASSERT_GE(folds, min_folds);
  ASSERT_EQ(r.folds.size(), folds);
  ASSERT_EQ(r.oos_returns.size(), folds * c.walk.oos_bars);

  const double cost = c.spec.costs.per_unit();
  std::vector<BarSegments> all;
  std::vector<int8_t> prev_pos(h.size(), 0);  // the previous fold winner's positions (none: flat)
  double wfe_sum = 0;
  int wfe_n = 0;
  bool saw_flat = false;
  for (size_t f = 0; f < folds; ++f) {
    SCOPED_TRACE("fold " + std::to_string(f));
    const Fold& fold = r.folds[f];
    const size_t w = c.walk.is_bars, k = c.walk.oos_bars, wu = c.walk.warmup;
    EXPECT_EQ(fold.index, f);
    EXPECT_EQ(fold.is_first, c.walk.mode == WalkMode::rolling ? wu + 1 + f * k : wu + 1);
    EXPECT_EQ(fold.is_last, wu + w + f * k);
    EXPECT_EQ(fold.oos_first, wu + w + f * k + 1);
    EXPECT_EQ(fold.oos_last, wu + w + (f + 1) * k);

    // The winner is the top of a sweep over the fold's IS window.
    SweepRequest req;
    req.history = h;
    req.strategy = c.spec;
    req.window = {fold.is_last + 1, fold.is_last + 1 - fold.is_first, wu};
    req.rank = c.rank;
    req.threads = 2;
    const SweepResult sweep = be->sweep(req);
    EXPECT_EQ(fold.evaluated, sweep.evaluated);
    EXPECT_EQ(fold.skipped, sweep.skipped);
    ASSERT_EQ(fold.winner.has_value(), !sweep.top.empty());
    std::vector<int8_t> pos(h.size(), 0);
    if (fold.winner) {
      EXPECT_EQ(fold.winner->combo.id, sweep.top[0].combo.id);
      EXPECT_TRUE(test::metrics_near(fold.is, sweep.top[0].metrics));
      EXPECT_TRUE(test::metrics_near(fold.winner->metrics, sweep.top[0].metrics));
      pos = be->positions(h, c.spec, fold.winner->combo);
    } else {
      saw_flat = true;
      EXPECT_TRUE(test::metrics_near(fold.is, Metrics{}, 0, 0))
          << "no winner: IS metrics are zeros";
    }

    // OOS bars: §2 with this winner's positions, except the first bar's p_{t-2}.
    std::vector<BarSegments> segs;
    for (size_t t = fold.oos_first; t <= fold.oos_last; ++t) {
      const int p2 = t == fold.oos_first ? prev_pos[t - 2] : pos[t - 2];
      segs.push_back(test::spec_segments(h, c.spec.fill, cost, t, p2, pos[t - 1]));
    }
    const test::OnePass o = test::one_pass(segs);
    for (size_t i = 0; i < k; ++i) {
      EXPECT_TRUE(test::near("oos_returns[" + std::to_string(f * k + i) + "]",
                             r.oos_returns[f * k + i], o.returns[i], 1e-12, 1e-15));
    }
    const Metrics want_oos = test::oracle_metrics(o, c.spec.bars_per_year);
    EXPECT_TRUE(test::metrics_near(fold.oos, want_oos)) << "oracle: " << test::describe(want_oos);
    if (!fold.winner) {
      EXPECT_EQ(fold.oos.long_bars + fold.oos.short_bars, 0)
          << "a fold without a winner holds flat";
    }
    if (fold.is.cagr > 0) {
      wfe_sum += fold.oos.cagr / fold.is.cagr;
      ++wfe_n;
    }
    all.insert(all.end(), segs.begin(), segs.end());
    prev_pos = pos;
  }
  EXPECT_EQ(saw_flat, c.expect_flat_fold);
  const Metrics want_all = test::oracle_metrics(test::one_pass(all), c.spec.bars_per_year);
  EXPECT_TRUE(test::metrics_near(r.oos, want_all)) << "oracle: " << test::describe(want_all);
  EXPECT_TRUE(test::near("wfe", r.wfe, wfe_n ? wfe_sum / wfe_n : 0.0, 1e-12, 1e-15));
  if (c.name == "rolling_close") {
    EXPECT_GT(wfe_n, 0) << "the WFE check would be vacuous";
  }
}

class WalkForwardRecompute : public ::testing::TestWithParam<std::tuple<int, const char*>> {};

TEST_P(WalkForwardRecompute, StitchedSeriesAndMetrics) {
  const WalkCase c = walk_cases()[static_cast<size_t>(std::get<0>(GetParam()))];
  expect_walk_matches_recompute(c, std::get<1>(GetParam()), 3);
}

TEST(WalkForward, SeededRandomShapes) {
  // Random W, k, warm-up, mode, fill, costs and constraints on random series (some folds may
  // have no winner); every run recomputed as above.
  constexpr uint64_t kBaseSeed = 31000;
  for (uint64_t i = 0; i < 24; ++i) {
    const uint64_t seed = kBaseSeed + i;
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    WalkCase c;
    c.name = "random_" + std::to_string(seed);
    c.series = test::random_walk(300 + rng() % 900, rng(), 50, 0.01, 0.003);
    c.spec.grid = walk_grid();
    if (rng() % 2) {
      c.spec.grid.family = Family::channel_breakout;
      c.spec.grid.fast.clear();
      c.spec.grid.slow.clear();
      c.spec.grid.n = {5, 20};
      c.spec.grid.source = {Source::close, Source::high_low};
    }
    c.spec.fill = rng() % 2 ? Fill::close : Fill::next_open;
    c.spec.costs.commission_bps = static_cast<double>(rng() % 6);
    c.rank.min_trades = static_cast<int64_t>(rng() % 4);
    c.rank.objective = rng() % 2 ? Objective::sharpe : Objective::total_return;
    c.walk.mode = rng() % 2 ? WalkMode::rolling : WalkMode::anchored;
    c.walk.warmup = 25 + rng() % 40;
    c.walk.is_bars = 1 + rng() % 200;
    c.walk.oos_bars = 1 + rng() % 80;
    c.expect_flat_fold = false;
    const size_t folds = count_folds(c.series.size(), c.walk);
    if (folds == 0) continue;
    // Whether a fold is flat depends on the data; check only what the recompute checks.
    for (const char* be : {"cpu_ref", "cpu"}) {
      WalkCase cc = c;
      auto probe = make_backend(be);
      const WalkResult r = walk_forward(*probe, HistoryView::of(cc.series), cc.spec, cc.rank,
                                        cc.walk, Precision::exact, 1);
      cc.expect_flat_fold =
          std::any_of(r.folds.begin(), r.folds.end(), [](const Fold& f) { return !f.winner; });
      expect_walk_matches_recompute(cc, be, 1);
    }
    if (::testing::Test::HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, WalkForwardRecompute,
                         ::testing::Combine(::testing::Values(0, 1, 2),
                                            ::testing::Values("cpu_ref", "cpu")),
                         [](const auto& tp) {
                           return walk_cases()[static_cast<size_t>(std::get<0>(tp.param))].name +
                                  "_" + std::string(std::get<1>(tp.param));
                         });

TEST(WalkForward, SwitchCostAndRunOnAcrossBoundaries) {
  // Hand-made check of the stitching rule on the switch bar, independent of which combos win:
  // the first OOS bar of fold f >= 1 differs from the winner's own §2 return exactly by the
  // previous winner's exit (cost and, with next_open, gap) when the winners differ.
  const WalkCase c = walk_cases()[1];
  auto be = make_backend("cpu_ref");
  const HistoryView h = HistoryView::of(c.series);
  const WalkResult r = walk_forward(*be, h, c.spec, c.rank, c.walk, Precision::exact, 1);
  ASSERT_GE(r.folds.size(), 2u);
  size_t checked = 0;
  for (size_t f = 1; f < r.folds.size(); ++f) {
    const Fold &a = r.folds[f - 1], &b = r.folds[f];
    if (!a.winner || !b.winner) continue;
    const auto pa = be->positions(h, c.spec, a.winner->combo),
               pb = be->positions(h, c.spec, b.winner->combo);
    const size_t t = b.oos_first;
    const double cost = c.spec.costs.per_unit();
    const BarSegments stitched = bar_segments(h, c.spec.fill, cost, t, pa[t - 2], pb[t - 1]);
    const double s = stitched.exit_value + stitched.body_value;
    EXPECT_TRUE(test::near("switch bar", r.oos_returns[f * c.walk.oos_bars], s, 1e-12, 1e-15))
        << "fold " << f;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// A backend that records the requests it sees and answers through cpu_ref.
class RecordingBackend final : public Backend {
 public:
  std::string_view name() const override { return "recording"; }
  SweepResult sweep(const SweepRequest& req) override {
    seen.push_back(req.window.end);
    prepare.push_back(req.prepared ? req.prepared->bars() : 0);
    preparations.insert(req.prepared.get());
    return inner_->sweep(req);
  }
  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    return inner_->evaluate(req, ids);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec,
                                const Combo& c) override {
    return inner_->positions(h, spec, c);
  }
  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    return inner_->block_summaries(req, cuts);
  }
  std::vector<size_t> seen, prepare;
  std::set<const PreparedHistory*> preparations;

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu_ref");
};

// Every fold's request (and so its selection's, which gets the same request) carries one
// preparation through the last fold's in-sample end: the cuda backend then builds rows and
// tables once per walk (tests/parity/walk_parity_test.cpp holds the results equal).
TEST(WalkForward, EveryFoldRunsOnOnePreparationThroughTheLastFoldsEnd) {
  for (const WalkCase& c : walk_cases()) {
    SCOPED_TRACE(c.name);
    RecordingBackend be;
    size_t selector_saw = 0;
    const FoldSelector select = [&](const SweepRequest& req, const SweepResult& sweep,
                                    const std::optional<Ranked>&) -> std::optional<Ranked> {
      selector_saw = req.prepared ? req.prepared->bars() : 0;
      if (sweep.top.empty()) return std::nullopt;
      return sweep.top.front();
    };
    const HistoryView h = HistoryView::of(c.series);
    const WalkResult r =
        walk_forward(be, h, c.spec, c.rank, c.walk, Precision::exact, 1, {}, select);
    ASSERT_GE(r.folds.size(), 2u);
    ASSERT_EQ(be.seen.size(), r.folds.size());
    const size_t last_end = r.folds.back().is_last + 1;
    EXPECT_EQ(be.seen.back(), last_end);
    for (size_t f = 0; f < be.seen.size(); ++f) {
      EXPECT_EQ(be.seen[f], r.folds[f].is_last + 1) << "fold " << f;
      EXPECT_EQ(be.prepare[f], last_end) << "fold " << f;
    }
    EXPECT_EQ(selector_saw, last_end);
    EXPECT_EQ(be.preparations.size(), 1u) << "one preparation for every fold";
    EXPECT_EQ(be.preparations.count(nullptr), 0u);
  }
}

// A cpu backend that lets walk_forward run positions() beside the next fold's sweep, and checks
// the promise walk_forward makes in return: never two positions() calls at once. Each
// positions() call dwells a little so that it really overlaps the sweep; one may be told to
// throw.
class OverlappingBackend final : public Backend {
 public:
  std::string_view name() const override { return "overlapping"; }
  bool positions_overlap_sweep() const override { return true; }
  SweepResult sweep(const SweepRequest& req) override {
    SweepResult r = inner_->sweep(req);
    if (in_positions) ++overlapped;  // a tail was still running when this sweep ended
    return r;
  }
  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    return inner_->evaluate(req, ids);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec,
                                const Combo& c) override {
    if (in_positions.fetch_add(1) != 0) ++concurrent_positions;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const size_t call = calls++;
    struct Leave {
      std::atomic<int>& n;
      ~Leave() { --n; }
    } leave{in_positions};
    if (call == throw_at) throw std::runtime_error("positions failed on purpose");
    return inner_->positions(h, spec, c);
  }
  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    return inner_->block_summaries(req, cuts);
  }
  std::atomic<int> in_positions{0}, concurrent_positions{0}, overlapped{0};
  std::atomic<size_t> calls{0};
  size_t throw_at = static_cast<size_t>(-1);

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu");
};

void expect_same_walk(const WalkResult& got, const WalkResult& want) {
  ASSERT_EQ(got.folds.size(), want.folds.size());
  for (size_t f = 0; f < got.folds.size(); ++f) {
    SCOPED_TRACE("fold " + std::to_string(f));
    const Fold& g = got.folds[f];
    const Fold& w = want.folds[f];
    EXPECT_EQ(g.index, w.index);
    EXPECT_EQ(g.winner.has_value(), w.winner.has_value());
    if (g.winner && w.winner) {
      EXPECT_EQ(g.winner->combo.id, w.winner->combo.id);
    }
    EXPECT_EQ(g.oos.trades, w.oos.trades);
    EXPECT_EQ(g.oos.total_return, w.oos.total_return);  // same arithmetic, same order: same bits
    EXPECT_EQ(g.oos.max_drawdown, w.oos.max_drawdown);
  }
  EXPECT_EQ(got.oos_returns, want.oos_returns);
  EXPECT_EQ(got.oos.trades, want.oos.trades);
  EXPECT_EQ(got.oos.sharpe, want.oos.sharpe);
  EXPECT_EQ(got.wfe, want.wfe);
}

// A backend that allows it gets each fold's out-of-sample work beside the next fold's sweep:
// the same walk to the bit, positions() never twice at once (the selector's calls included).
TEST(WalkForward, OverlappedTailsGiveTheSameWalk) {
  for (const WalkCase& c : walk_cases()) {
    SCOPED_TRACE(c.name);
    const HistoryView h = HistoryView::of(c.series);
    auto cpu = make_backend("cpu");
    for (const bool with_selector : {false, true}) {
      SCOPED_TRACE(with_selector ? "selector asking for positions" : "arg-max winners");
      OverlappingBackend be;
      // A selector that asks for the sweep's leader's positions, as robust selection does.
      auto selector = [](Backend& b) -> FoldSelector {
        return [&b](const SweepRequest& req, const SweepResult& sweep,
                    const std::optional<Ranked>&) -> std::optional<Ranked> {
          if (sweep.top.empty()) return std::nullopt;
          (void)b.positions(req.history, req.strategy, sweep.top.front().combo);
          return sweep.top.front();
        };
      };
      const WalkResult got = walk_forward(be, h, c.spec, c.rank, c.walk, Precision::exact, 2, {},
                                          with_selector ? selector(be) : FoldSelector{});
      const WalkResult want = walk_forward(*cpu, h, c.spec, c.rank, c.walk, Precision::exact, 2, {},
                                           with_selector ? selector(*cpu) : FoldSelector{});
      expect_same_walk(got, want);
      EXPECT_EQ(be.concurrent_positions.load(), 0);
      EXPECT_EQ(be.in_positions.load(), 0);
    }
  }
}

// One thread asked for: no tail on another thread (positions() then never runs during a sweep).
TEST(WalkForward, OneThreadMeansNoOverlap) {
  const WalkCase c = walk_cases().front();
  OverlappingBackend be;
  const HistoryView h = HistoryView::of(c.series);
  (void)walk_forward(be, h, c.spec, c.rank, c.walk, Precision::exact, 1);
  EXPECT_EQ(be.overlapped.load(), 0);
  EXPECT_GT(be.calls.load(), 1u);
}

// A tail that throws fails the walk with its own error, whichever fold's sweep it ran beside.
TEST(WalkForward, AFailingTailFailsTheWalk) {
  const WalkCase c = walk_cases().front();
  const HistoryView h = HistoryView::of(c.series);
  for (const size_t at : {size_t{0}, size_t{1}, size_t{2}}) {
    SCOPED_TRACE("positions call " + std::to_string(at) + " throws");
    OverlappingBackend be;
    be.throw_at = at;
    try {
      (void)walk_forward(be, h, c.spec, c.rank, c.walk, Precision::exact, 2);
      ADD_FAILURE() << "the walk did not fail";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "positions failed on purpose");
    }
    EXPECT_EQ(be.in_positions.load(), 0);
  }
}

}  // namespace
}  // namespace wfod
